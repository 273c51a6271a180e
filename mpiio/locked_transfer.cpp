// See locked_transfer.h.
#include "locked_transfer.h"

#include "access_check.h"
#include "instantiate.h"
#include "own_transfer.h"
#include "packed_transfer.h"

namespace piox::mpiio {

template <typename Count>
int locked_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                    Count count, MPI_Datatype datatype, MPI_Count etype_size,
                    MPI_Status *status)
{
    // An access of no bytes touches nothing: no lock, and no map of the view (a
    // darray filetype may hold no data on some process). The library still judges
    // its arguments.
    MPI_Offset bytes = -1;
    if (count == 0 || (access_bytes(count, datatype, &bytes) == MPI_SUCCESS && bytes == 0))
        return library_transfer(file.fh, direction, offset, buf, count, datatype, etype_size,
                                file.native, status);
    int rc = MPI_SUCCESS;
    if (own_transfer(file, direction, offset, buf, count, datatype, etype_size, status, &rc))
        return rc;
    return with_access_locked(file, direction, offset, count, datatype, [&] {
        return library_transfer(file.fh, direction, offset, buf, count, datatype, etype_size,
                                file.native, status);
    });
}

PIOX_INSTANTIATE_FOR_COUNTS(locked_transfer)

}  // namespace piox::mpiio
