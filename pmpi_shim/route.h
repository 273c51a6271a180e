// How a wrapped call reaches the part of piox that takes it over (the `part` column
// of routines.def), or else goes on to the next definition of the routine. One
// overload of route() per part; each receives the routine (a template argument),
// its handler, the next routine and the call's arguments.
#ifndef PIOX_SHIM_ROUTE_H
#define PIOX_SHIM_ROUTE_H

#include "data_access.h"
#include "registry.h"
#include "routine.h"

#include <memory>
#include <tuple>

namespace piox::shim {

// MPI_ERR_FILE through the default file error handler, for a handle that belongs
// to a file already closed.
int closed_handle_error(Routine routine);

struct lifecycle_part {};
struct record_part {};
struct pointer_part {};
struct sfp_part {};
struct atomicity_part {};
struct offset_part {};

// The shim's own handlers receive the next routine and every argument.
template <Routine R, typename Handler, typename Next, typename... Args>
int route(lifecycle_part, Handler handler, Next next, Args... args)
{
    return handler(next, args...);
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

// The shim's handlers that serve every part of a file: the next routine, the file's
// record (null for files piox does not manage) and every argument.
template <Routine R, typename Handler, typename Next, typename... Rest>
int route(record_part, Handler handler, Next next, MPI_File fh, Rest... rest)
{
    int error = MPI_SUCCESS;
    std::shared_ptr<FileRecord> record = record_of(fh, R, &error);
    return error != MPI_SUCCESS ? error : handler(next, record.get(), fh, rest...);
}

// Whether the part of piox that owns routine R takes this call on this file.
template <Routine R, typename... Args>
bool takes(pointer_part, const mpiio::OpenFile &, Args...)
{
    return true;  // piox keeps the individual pointer of every file it manages
}
template <Routine R, typename... Args>
bool takes(sfp_part, const mpiio::OpenFile &file, Args...)
{
    return file.sfp != nullptr;
}
template <Routine R, typename... Args>
bool takes(atomicity_part, const mpiio::OpenFile &file, Args...)
{
    return file.atomic != nullptr;
}
template <Routine R, typename... Args>
bool takes(offset_part, const mpiio::OpenFile &file, Args... args)
{
    // A split collective's end call is piox's when piox holds one; its begin call,
    // like the other routines, when piox moves its data (or refuses it), or hands it
    // to the library otherwise than as called (mpiio::handoff).
    if constexpr (is_split_end(R)) {
        return file.split.kind != mpiio::SplitKind::none;
    } else {
        using A = AccessOf<R>;
        // args: offset, buf, count, datatype[, status or request]
        const MPI_Datatype datatype = std::get<3>(std::make_tuple(args...));
        return file.sequential() || mpiio::piox_moves<A>(file) || mpiio::remaps<A>(file) ||
               mpiio::aggregates<A>(file) ||
               mpiio::handoff<A>(file, datatype) != mpiio::Handoff::as_called;
    }
}

// The parts of piox::mpiio receive the file and the arguments after the handle.
template <Routine R, typename Part, typename Handler, typename Next, typename... Rest>
int route(Part part, Handler handler, Next next, MPI_File fh, Rest... rest)
{
    int error = MPI_SUCCESS;
    std::shared_ptr<FileRecord> record = record_of(fh, R, &error);
    if (error != MPI_SUCCESS)
        return error;
    if (record == nullptr || !takes<R>(part, record->file, rest...)) {
        const int rc = next(fh, rest...);
        if constexpr (writes_data(R))
            if (rc != MPI_SUCCESS && record != nullptr)
                mpiio::release_locks_after_failed_write(record->file);  // transfer.h
        return rc;
    }
    record->count(R);
    return handler(record->file, rest...);
}

// The handler of a routine with a count: one template per part serves them all.
template <Routine R>
auto counted_handler(pointer_part)
{
    return [](mpiio::OpenFile &file, auto... rest) {
        return mpiio::pointer_access<AccessOf<R>>(file, name_of(R), rest...);
    };
}
template <Routine R>
auto counted_handler(sfp_part)
{
    return [](mpiio::OpenFile &file, auto... rest) {
        return mpiio::shared_pointer_access<AccessOf<R>>(file, name_of(R), rest...);
    };
}
template <Routine R>
auto counted_handler(offset_part)
{
    return [](mpiio::OpenFile &file, auto... rest) {
        return mpiio::explicit_access<AccessOf<R>>(file, name_of(R), rest...);
    };
}

}  // namespace piox::shim

#endif
