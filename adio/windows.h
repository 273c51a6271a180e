// Creating and freeing the MPI windows of the adio core.
#ifndef PIOX_ADIO_WINDOWS_H
#define PIOX_ADIO_WINDOWS_H

#include <mpi.h>

#include <functional>

namespace piox::adio {

// One block of memory shared by every process of a one-node communicator, hosted
// by rank 0 (MPI_Win_allocate_shared) and mapped by all.
// Collective over comm (all on one node). Rank 0 allocates bytes and runs
// initialise(base) before anyone returns; every process gets the window (free it
// with MPI_Win_free) and its own mapping of the block. Fails on every process
// alike.
int allocate_node_segment(MPI_Comm comm, MPI_Aint bytes,
                          const std::function<void(void *base)> &initialise, MPI_Win *win,
                          void **base);

// Collective: a window of bytes (0 allowed) on each process, zeroed everywhere before
// anyone returns, with MPI_ERRORS_RETURN. Fails on every process alike.
int allocate_zeroed_window(MPI_Comm comm, MPI_Aint bytes, MPI_Win *win, void **base);

// Collective: frees a window and the private communicator it was built on; the first
// error wins.
int free_window_and_comm(MPI_Win *win, MPI_Comm *comm);

}  // namespace piox::adio

#endif
