// How a wrapped call reaches the part of piox that takes it over (see the `part`
// column of routines.def). One overload of route() per part.
#ifndef PIOX_SHIM_ROUTE_H
#define PIOX_SHIM_ROUTE_H

#include "registry.h"
#include "routine.h"

namespace piox::shim {

// MPI_ERR_FILE through the default file error handler, for a handle that belongs
// to a file already closed.
int closed_handle_error(Routine routine);

struct lifecycle_part {};
struct sfp_part {};

// The shim's own handlers receive the real routine and every argument.
template <auto Handler, typename Real, typename... Args>
int route(lifecycle_part, Routine, Real real, Args... args)
{
    return Handler(real, args...);
}

// Files with shared-pointer state go to piox::mpiio; all others to the library.
template <auto Handler, typename Real, typename... Rest>
int route(sfp_part, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    std::shared_ptr<FileRecord> record = file_registry().find(fh);
    if (record == nullptr && fh != MPI_FILE_NULL && file_registry().was_closed(fh))
        return closed_handle_error(routine);
    if (record == nullptr || record->sfp == nullptr)
        return real(fh, rest...);
    record->count(routine);
    return Handler(*record->sfp, rest...);
}

}  // namespace piox::shim

#endif
