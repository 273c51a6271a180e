/* sfp_count: piox's core C interface (piox_sfp.h), built with `pkg-config --cflags
 * --libs piox` by installcheck/check: every rank adds 1 to a shared pointer, and
 * rank 0 prints what it holds after all have ("pointer=N"). */
#include <mpi.h>
#include <piox_sfp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    piox_sfp *sfp = NULL;
    MPI_Offset previous = 0, current = 0;
    int rc = piox_sfp_create(MPI_COMM_WORLD, 0, PIOX_SFP_TRANSPORT_AUTO, &sfp);
    if (rc == MPI_SUCCESS)
        rc = piox_sfp_fetch_add(sfp, 1, &previous);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = piox_sfp_read(sfp, &current);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "sfp_count: MPI error %d\n", rc);
    else if (rank == 0)
        printf("pointer=%lld of %d\n", (long long)current, size);
    if (sfp != NULL)
        piox_sfp_free(&sfp);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
