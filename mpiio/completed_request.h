// A request that is already complete and carries a given status: what a
// nonblocking routine returns when it did its transfer before returning (MPI
// allows that). Built as a generalized request, so MPI_Wait/Test and friends of
// any MPI library handle it.
#ifndef PIOX_MPIIO_COMPLETED_REQUEST_H
#define PIOX_MPIIO_COMPLETED_REQUEST_H

#include <mpi.h>

namespace piox::mpiio {

int completed_request(const MPI_Status &status, MPI_Request *request);

}  // namespace piox::mpiio

#endif
