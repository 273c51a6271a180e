// See locked_transfer.h.
#include "locked_transfer.h"

#include "atomic_sieve.h"
#include "instantiate.h"
#include "packed_transfer.h"

namespace piox::mpiio {

template <typename Count>
int locked_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                    Count count, MPI_Datatype datatype, MPI_Count etype_size,
                    Positioning positioning, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (sieved_transfer(file, direction, offset, buf, count, datatype, status, &rc))
        return rc;
    return with_access_locked(file, direction, offset, count, datatype, [&] {
        return library_transfer(file.fh, direction, offset, buf, count, datatype, etype_size,
                                positioning, status);
    });
}

PIOX_INSTANTIATE_FOR_COUNTS(locked_transfer)

}  // namespace piox::mpiio
