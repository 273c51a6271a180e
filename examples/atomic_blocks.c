/*
 * atomic_blocks - an ordinary MPI program that updates a shared file in MPI-IO
 * atomic mode: each rank owns every N-th 256-byte block of the file (a strided
 * view, so its accesses are noncontiguous and interleave with everyone else's) and
 * rewrites all its blocks, again and again, with MPI_File_write_at. It knows
 * nothing about piox.
 *
 *   mpiexec -n 4 ./atomic_blocks FILE [ITERATIONS]
 *
 * Rank 0 prints the time per call and checks the file: every block holds its
 * owner's last stamp, byte for byte.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define BLOCKS_PER_RANK 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: atomic_blocks FILE [ITERATIONS]\n");
        MPI_Finalize();
        return 2;
    }
    const int iterations = argc > 2 ? atoi(argv[2]) : 500;

    MPI_File fh;
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* may not exist */
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Datatype strided;
    MPI_Type_vector(BLOCKS_PER_RANK, BLOCK, BLOCK * size, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, strided, "native", MPI_INFO_NULL);
    MPI_File_set_atomicity(fh, 1);

    char *data = malloc(BLOCK * BLOCKS_PER_RANK);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; i++) {
        memset(data, 'A' + (rank + i) % 26, BLOCK * BLOCKS_PER_RANK);
        if (MPI_File_write_at(fh, 0, data, BLOCK * BLOCKS_PER_RANK, MPI_BYTE,
                              MPI_STATUS_IGNORE) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double mine = (MPI_Wtime() - start) / iterations * 1e6, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    MPI_Type_free(&strided);

    int errors = 0;
    if (rank == 0) {
        FILE *file = fopen(argv[1], "rb");
        char block[BLOCK];
        for (int b = 0; file != NULL && b < BLOCKS_PER_RANK * size; b++) {
            int owner = b % size;
            char expected = (char)('A' + (owner + iterations - 1) % 26);
            if (fread(block, 1, BLOCK, file) != BLOCK)
                errors++;
            for (int k = 0; k < BLOCK; k++)
                errors += block[k] != expected;
        }
        if (file != NULL)
            fclose(file);
        printf("atomic_blocks: write_at %10.1f us/call (%d ranks, %d interleaved blocks each)\n",
               slowest, size, BLOCKS_PER_RANK);
        printf("atomic_blocks: file %s\n", errors ? "WRONG" : "verified byte by byte");
    }
    free(data);
    MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return errors != 0;
}
