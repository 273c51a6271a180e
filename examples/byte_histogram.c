/*
 * byte_histogram - an ordinary data-parallel MPI program in the DL-MPI paper's shape:
 * each rank reads its share of a file, offset = rank * (size / nprocs), with one
 * collective MPI_File_read_at_all, and counts how often each byte value occurs; the
 * counts are summed on rank 0. It never asks where the data is, and the answer does not
 * depend on the order of the file's chunks.
 *
 *   mpiexec -n 6 ./byte_histogram FILE
 *
 * Rank 0 prints the file's size and a checksum of the histogram (the same under any
 * permutation of the file's chunks) and the seconds the read took.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: byte_histogram FILE\n");
        MPI_Finalize();
        return 2;
    }
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "byte_histogram: cannot open %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    const MPI_Offset avg = size / nprocs, offset = rank * avg;
    const MPI_Offset length = rank == nprocs - 1 ? size - offset : avg;
    unsigned char *buf = malloc((size_t)length + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Status status;
    if (MPI_File_read_at_all(fh, offset, buf, (int)length, MPI_BYTE, &status) != MPI_SUCCESS) {
        fprintf(stderr, "byte_histogram: rank %d: the read failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double seconds = MPI_Wtime() - start, slowest = 0;
    MPI_File_close(&fh);
    long long counts[256] = {0}, total[256];
    for (MPI_Offset i = 0; i < length; i++)
        counts[buf[i]]++;
    free(buf);
    MPI_Reduce(counts, total, 256, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t check = 1469598103934665603ULL;  /* FNV-1a over the counts */
        long long bytes = 0;
        for (int v = 0; v < 256; v++) {
            bytes += total[v];
            for (int b = 0; b < 8; b++)
                check = (check ^ (uint64_t)((total[v] >> (8 * b)) & 0xff)) * 1099511628211ULL;
        }
        printf("%lld bytes, histogram checksum %016llx, read in %.3f s\n", bytes,
               (unsigned long long)check, slowest);
    }
    MPI_Finalize();
    return 0;
}
