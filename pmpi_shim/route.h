// How a wrapped call reaches the part of piox that takes it over (see the `part`
// column of routines.def). One overload of route() per part.
#ifndef PIOX_SHIM_ROUTE_H
#define PIOX_SHIM_ROUTE_H

#include "atomic_file.h"
#include "registry.h"
#include "routine.h"

namespace piox::shim {

// MPI_ERR_FILE through the default file error handler, for a handle that belongs
// to a file already closed.
int closed_handle_error(Routine routine);

struct lifecycle_part {};
struct record_part {};
struct sfp_part {};
struct atomicity_part {};
struct atomic_part {};

// The shim's own handlers receive the real routine and every argument.
template <auto Handler, typename Real, typename... Args>
int route(lifecycle_part, Routine, Real real, Args... args)
{
    return Handler(real, args...);
}

// fh's record, or null for a file piox does not manage. The handle of a file piox
// closed gets MPI_ERR_FILE in *error (raised) instead of reaching the library.
inline std::shared_ptr<FileRecord> record_of(MPI_File fh, Routine routine, int *error)
{
    std::shared_ptr<FileRecord> record = file_registry().find(fh);
    *error = record == nullptr && fh != MPI_FILE_NULL && file_registry().was_closed(fh)
                 ? closed_handle_error(routine)
                 : MPI_SUCCESS;
    return record;
}

// The shim's handlers that serve every part of a file: the real routine, the file's
// record (null for files piox does not manage) and every argument.
template <auto Handler, typename Real, typename... Rest>
int route(record_part, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    int error = MPI_SUCCESS;
    std::shared_ptr<FileRecord> record = record_of(fh, routine, &error);
    return error != MPI_SUCCESS ? error : Handler(real, record.get(), fh, rest...);
}

// The parts of piox::mpiio receive their state of the file and the arguments after
// the handle. select(record) gives that state, or null when the part leaves this
// call to the library (which also gets every file piox does not manage).
template <auto Handler, typename Select, typename Real, typename... Rest>
int route_to_state(Select select, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    int error = MPI_SUCCESS;
    std::shared_ptr<FileRecord> record = record_of(fh, routine, &error);
    if (error != MPI_SUCCESS)
        return error;
    auto *state = record != nullptr ? select(*record) : nullptr;
    if (state == nullptr)
        return real(fh, rest...);
    record->count(routine);
    return Handler(*state, rest...);
}

// Files with shared-pointer state.
template <auto Handler, typename Real, typename... Rest>
int route(sfp_part, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    return route_to_state<Handler>([](FileRecord &r) { return r.sfp.get(); }, routine, real, fh,
                                   rest...);
}

// Files whose atomic mode piox manages.
template <auto Handler, typename Real, typename... Rest>
int route(atomicity_part, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    return route_to_state<Handler>([](FileRecord &r) { return r.atomic.get(); }, routine, real,
                                   fh, rest...);
}

// Independent writes: on a lockless file system piox moves them even outside atomic
// mode (mpiio/lockless.h).
constexpr bool is_independent_write(Routine routine)
{
    return routine == Routine::File_write_at || routine == Routine::File_iwrite_at ||
           routine == Routine::File_write || routine == Routine::File_iwrite;
}

// Data access, while the file is in atomic mode (or see is_independent_write).
template <auto Handler, typename Real, typename... Rest>
int route(atomic_part, Routine routine, Real real, MPI_File fh, Rest... rest)
{
    return route_to_state<Handler>(
        [routine](FileRecord &r) {
            return r.atomic != nullptr &&
                           mpiio::takes_over(*r.atomic, is_independent_write(routine))
                       ? r.atomic.get()
                       : nullptr;
        },
        routine, real, fh, rest...);
}

}  // namespace piox::shim

#endif
