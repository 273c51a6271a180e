// One block of memory shared by every process of a one-node communicator, hosted
// by rank 0 (MPI_Win_allocate_shared) and mapped by all.
#ifndef PIOX_ADIO_SHM_SEGMENT_H
#define PIOX_ADIO_SHM_SEGMENT_H

#include <mpi.h>

#include <functional>

namespace piox::adio {

// Collective over comm (all on one node). Rank 0 allocates bytes and runs
// initialise(base) before anyone returns; every process gets the window (free it
// with MPI_Win_free) and its own mapping of the block. Fails on every process
// alike.
int allocate_node_segment(MPI_Comm comm, MPI_Aint bytes,
                          const std::function<void(void *base)> &initialise, MPI_Win *win,
                          void **base);

}  // namespace piox::adio

#endif
