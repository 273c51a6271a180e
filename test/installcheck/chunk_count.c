/* chunk_count FILE: how many chunks of FILE libdli finds on this host, in chunks of
 * 4 KiB (rank 0 prints "chunks=N"). Built against the installed libdli with
 * `pkg-config --cflags --libs dli` by installcheck/check. */
#include <mpi.h>
#include <dli.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dli_chunk_size", "4096");
    char host[256];
    int chunks = 0, rc = argc == 2 ? DLI_Init(MPI_COMM_WORLD, info) : DLI_ERR_ARG;
    if (rc == DLI_SUCCESS)
        rc = DLI_Load(argv[1]);
    if (rc == DLI_SUCCESS)
        rc = DLI_get_process_name(host, sizeof host);
    if (rc == DLI_SUCCESS)
        rc = DLI_get_total_chunks(argv[1], host, &chunks);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc != DLI_SUCCESS)
        fprintf(stderr, "chunk_count: %s: %s\n", DLI_strerror(rc), DLI_last_error());
    else if (rank == 0)
        printf("chunks=%d\n", chunks);
    DLI_Finalize();
    MPI_Info_free(&info);
    MPI_Finalize();
    return rc == DLI_SUCCESS ? 0 : 1;
}
