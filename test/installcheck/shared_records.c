/* shared_records FILE: every rank appends 10 records (its rank, an int) with
 * MPI_File_write_shared, and rank 0 counts them ("records=N of M"). An ordinary MPI
 * program: installcheck/check runs it under the piox launcher and links it with
 * libpiox through pkg-config and piox-config, dynamically and statically (libpiox.a,
 * ld --wrap); PIOX_DEBUG's log shows that piox moved the pointer. */
#include <mpi.h>
#include <stdio.h>

#define RECORDS 10

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    int rc = argc == 2 ? MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
                                       MPI_INFO_NULL, &fh)
                       : MPI_ERR_ARG;
    const int opened = rc == MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < RECORDS; i++)
        rc = MPI_File_write_shared(fh, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset bytes = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_get_size(fh, &bytes);
    if (opened)
        MPI_File_close(&fh);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "shared_records: MPI error %d\n", rc);
    else if (rank == 0)
        printf("records=%lld of %d\n", (long long)(bytes / (MPI_Offset)sizeof(int)),
               RECORDS * size);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
