// Moving one access's data in atomic mode (and independent writes on a lockless
// file system): with the access's bytes locked, by piox itself where it can
// (own_transfer.h), else by the library's blocking explicit-offset routine in the
// count form the program called (packed_transfer.h). See atomic_file.h for what it
// guarantees, and transfer.h for how nonblocking and collective routines come to use it.
#ifndef PIOX_MPIIO_LOCKED_TRANSFER_H
#define PIOX_MPIIO_LOCKED_TRANSFER_H

#include "atomic_file.h"

namespace piox::mpiio {

// count items of datatype at offset (etypes of the view, of etype_size bytes each);
// Count is int or MPI_Count. Errors are raised on the file.
template <typename Count>
int locked_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                    Count count, MPI_Datatype datatype, MPI_Count etype_size,
                    MPI_Status *status);

}  // namespace piox::mpiio

#endif
