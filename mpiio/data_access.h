// The MPI-IO routines piox implements for the files it manages, one template per way
// of positioning an access (explicit offset, individual pointer, shared pointer),
// over the access's kind A (access_kind.h: read or write; independent or collective;
// blocking, nonblocking or split begin) and the count's type (int, or MPI_Count for
// the MPI-4 _c forms). Each takes the file's state, the routine's name (for
// messages) and the routine's arguments after the file handle; `out...` is the
// status (blocking), the request (nonblocking), or nothing (split begin). The
// routines without a count (seeking, positions, split ends) are plain functions.
//
// Each finds the access's offset, then moves the data as transfer.h says.
#ifndef PIOX_MPIIO_DATA_ACCESS_H
#define PIOX_MPIIO_DATA_ACCESS_H

#include "access_check.h"
#include "errors.h"
#include "sequential.h"
#include "transfer.h"

#include <algorithm>

namespace piox::mpiio {

// The completion argument of transfer_at: the caller's status or request, or for a
// split collective's begin call, which one it is.
template <typename... Out>
auto completion_or(SplitKind split, Out... out)
{
    if constexpr (sizeof...(Out) == 0)
        return split;
    else
        return (out, ...);
}

// MPI_File_{read,write}_at{,_all}, their i- forms and split begins.
template <typename A, typename Count, typename... Out>
int explicit_access(OpenFile &file, const char *routine, MPI_Offset offset,
                    BufferOf<A::direction> buf, Count count, MPI_Datatype datatype, Out... out)
{
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if constexpr (A::completion == Completion::split_begin)
        if (int rc = check_no_split(file, routine); rc != MPI_SUCCESS)
            return rc;
    const SplitKind split = A::writes ? SplitKind::write_at_all : SplitKind::read_at_all;
    return transfer_at<A>(file, offset, buf, count, datatype, completion_or(split, out...));
}

// The etypes a read at the individual pointer from `offset` read, by its status
// (whole etypes): a read that reaches the end of the file moves the pointer past
// what it read (MPI-3.1 13.4.3). ROMIO 4.0.2's status counts bytes past the end of
// the file for some views and routines (collective and nonblocking reads, resized
// filetypes): piox counts only the bytes of the access's map that the file holds,
// and corrects the status to them.
MPI_Offset etypes_read(OpenFile &file, MPI_Offset offset, MPI_Status &status);

// Where a read at the individual pointer that asked for `etypes` from `offset`
// leaves it, by its status (corrected as etypes_read says).
inline MPI_Offset after_read(OpenFile &file, MPI_Offset offset, MPI_Offset etypes,
                             MPI_Status &status)
{
    return offset + std::min(etypes, etypes_read(file, offset, status));
}

// Where a nonblocking read leaves the pointer: by its status when its request is
// already complete (piox's always are; ROMIO's independent ones on local file
// systems too), else past the etypes of its access that the file holds when the
// call starts.
MPI_Offset after_nonblocking_read(OpenFile &file, MPI_Offset offset, MPI_Offset etypes,
                                  MPI_Request request);

// MPI_File_{read,write}{,_all}, their i- forms and split begins: at piox's individual
// pointer, which then moves past the etypes the access asked for (MPI-3.1 13.4.1:
// at once, for nonblocking and split routines too); a read moves it past the etypes
// it read as soon as piox knows them (a blocking read, a nonblocking one already
// complete, a split one at its end call).
template <typename A, typename Count, typename... Out>
int pointer_access(OpenFile &file, const char *routine, BufferOf<A::direction> buf, Count count,
                   MPI_Datatype datatype, Out... out)
{
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if constexpr (A::completion == Completion::split_begin)
        if (int rc = check_no_split(file, routine); rc != MPI_SUCCESS)
            return rc;
    MPI_Offset etypes = 0;
    int rc = check_access(file, routine, A::direction, count, datatype, &etypes);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    const MPI_Offset offset = file.position;
    const SplitKind split = A::writes ? SplitKind::write_all : SplitKind::read_all;
    if constexpr (A::completion == Completion::blocking && !A::writes) {
        MPI_Status own_status{}, *status = (out, ...);
        if (status == MPI_STATUS_IGNORE)
            status = &own_status;
        rc = transfer_at<A, Positioning::individual_pointer>(file, offset, buf, count, datatype,
                                                              status);
        if (rc == MPI_SUCCESS)
            file.position = after_read(file, offset, etypes, *status);
        return rc;
    }
    rc = transfer_at<A, Positioning::individual_pointer>(file, offset, buf, count, datatype,
                                                          completion_or(split, out...));
    if (rc != MPI_SUCCESS)
        return rc;
    file.position = offset + etypes;
    if constexpr (!A::writes && A::completion == Completion::nonblocking)
        file.position = after_nonblocking_read(file, offset, etypes, *(out, ...));
    if constexpr (!A::writes && A::completion == Completion::split_begin)
        file.split.pointer_before = offset, file.split.pointer_after = file.position;
    return rc;
}

// MPI_File_{read,write}_shared and their i- forms: one fetch-and-add on the shared
// pointer claims the range (the pointer is held no longer than the atomic itself).
template <typename A, typename Count, typename Out>
int shared_access(OpenFile &file, const char *routine, BufferOf<A::direction> buf, Count count,
                  MPI_Datatype datatype, Out out)
{
    MPI_Offset etypes = 0;
    int rc = check_access(file, routine, A::direction, count, datatype, &etypes);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    MPI_Offset offset = 0;
    rc = piox_sfp_fetch_add(file.sfp->pointer, etypes, &offset);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    // The data moves independently (MPI_File_write_at): that is what the routine is.
    using Independent = Access<A::direction, false, A::completion>;
    return transfer_at<Independent>(file, offset, buf, count, datatype, out);
}

// The collective step shared by every ordered routine: one scan gives each process
// its offset (rank order) and advances the pointer before anyone returns. Every
// process takes part, even one whose own arguments are bad or that has a split
// collective outstanding (it contributes nothing), so that nobody is left waiting;
// *local_error then holds its error code.
int claim_ordered(OpenFile &file, const char *routine, Direction direction, MPI_Count count,
                  MPI_Datatype datatype, MPI_Offset *offset, int *local_error);

// MPI_File_{read,write}_ordered and their split begins. By default the data moves
// with the independent routines: the library's collective I/O would add collectives
// that busy-wait, which is what makes ROMIO's ordered mode slow when ranks outnumber
// cores. The hint piox_ordered_io=collective moves it with
// MPI_File_{read,write}_at_all{,_begin} instead (in atomic mode those too become
// independent and locked: transfer.h). An independent split begin moves the data at
// once (MPI lets it); a nonblocking transfer would gain nothing: ROMIO completes
// MPI_File_iwrite_at through POSIX aio, whose completion MPI_Wait polls in a busy loop.
template <typename A, typename Count, typename... Out>
int ordered_access(OpenFile &file, const char *routine, BufferOf<A::direction> buf, Count count,
                   MPI_Datatype datatype, Out... out)
{
    constexpr bool split = A::completion == Completion::split_begin;
    const SplitKind kind = A::writes ? SplitKind::write_ordered : SplitKind::read_ordered;
    const bool split_was_free = file.split.kind == SplitKind::none;
    MPI_Offset offset = 0;
    int local_error = MPI_SUCCESS;
    int rc = claim_ordered(file, routine, A::direction, count, datatype, &offset, &local_error);
    const bool failed = rc != MPI_SUCCESS || local_error != MPI_SUCCESS;
    // A collective transfer needs every process, one that failed included (with
    // nothing to move), unless another split collective is what it failed on.
    if (file.sfp->options.collective_ordered_io && (!failed || split_was_free)) {
        using Collective = Access<A::direction, true, A::completion>;
        if (!failed)
            return transfer_at<Collective>(file, offset, buf, count, datatype,
                                           completion_or(kind, out...));
        MPI_Status ignored;
        if constexpr (split)
            transfer_at<Collective>(file, offset, buf, Count(0), MPI_BYTE, kind);
        else
            transfer_at<Collective>(file, offset, buf, Count(0), MPI_BYTE, &ignored);
    }
    if (failed)
        return raise_code(file.fh, local_error != MPI_SUCCESS ? local_error : rc);
    using Independent = Access<A::direction, false, Completion::blocking>;
    if constexpr (split) {
        rc = transfer_at<Independent>(file, offset, buf, count, datatype, &file.split.status);
        if (rc == MPI_SUCCESS)
            file.split.kind = kind, file.split.forwarded = false;
        return rc;
    } else {
        return transfer_at<Independent>(file, offset, buf, count, datatype, out...);
    }
}

// The shared-pointer routines of the routine table: shared ones are independent,
// ordered ones collective.
template <typename A, typename Count, typename... Out>
int shared_pointer_access(OpenFile &file, const char *routine, BufferOf<A::direction> buf,
                          Count count, MPI_Datatype datatype, Out... out)
{
    if constexpr (A::collective)
        return ordered_access<A>(file, routine, buf, count, datatype, out...);
    else
        return shared_access<A>(file, routine, buf, count, datatype, out...);
}

// The routines without a count.
int File_seek(OpenFile &file, MPI_Offset offset, int whence);
int File_get_position(OpenFile &file, MPI_Offset *offset);
int File_seek_shared(OpenFile &file, MPI_Offset offset, int whence);
int File_get_position_shared(OpenFile &file, MPI_Offset *offset);
int File_read_at_all_end(OpenFile &file, void *buf, MPI_Status *status);
int File_write_at_all_end(OpenFile &file, const void *buf, MPI_Status *status);
int File_read_all_end(OpenFile &file, void *buf, MPI_Status *status);
int File_write_all_end(OpenFile &file, const void *buf, MPI_Status *status);
int File_read_ordered_end(OpenFile &file, void *buf, MPI_Status *status);
int File_write_ordered_end(OpenFile &file, const void *buf, MPI_Status *status);
int File_set_atomicity(OpenFile &file, int flag);
int File_get_atomicity(OpenFile &file, int *flag);

}  // namespace piox::mpiio

#endif
