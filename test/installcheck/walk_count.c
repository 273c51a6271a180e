/* walk_count ROOT: how many entries libpftw visits under ROOT, the root included
 * (rank 0 prints "entries=N"). Built against the installed libpftw with
 * `pkg-config --cflags --libs pftw` by installcheck/check. */
#include <mpi.h>
#include <pftw.h>
#include <stdio.h>

static int count_entry(const PFTW_Entry *entry, void *extra)
{
    (void)entry;
    ++*(long *)extra;
    return PFTW_CONTINUE;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long mine = 0, total = 0;
    int rc = argc == 2 ? PFTW_Walk(MPI_COMM_WORLD, argv[1], MPI_INFO_NULL, count_entry, &mine, NULL)
                       : PFTW_ERR_ARG;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc != PFTW_SUCCESS)
        fprintf(stderr, "walk_count: %s\n", PFTW_Error_string(rc));
    else if (rank == 0)
        printf("entries=%ld\n", total);
    MPI_Finalize();
    return rc == PFTW_SUCCESS ? 0 : 1;
}
