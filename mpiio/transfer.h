// How every data access moves its data once it knows its offset (etypes of the
// current view), whichever way it was positioned (data_access.h).
//
// A read of a file piox remaps (chunk_remap.h) goes through the remap, at once and
// independently, whatever its form (remapped_read.h). A collective read of a file in
// aggregate mode is piox's two-phase read (aggregate_read.h); a nonblocking one
// returns a request that MPI_Wait and MPI_Test advance.
//
// piox moves it, locked (locked_transfer.h, own_transfer.h), while the file is in
// atomic mode and, on a lockless file system, for independent writes and for
// collective writes whose processes write disjoint bytes (disjoint_writes.h). It
// does so at once: a collective routine becomes independent (a process holding
// locks must never wait in a collective for one that waits for them; ROMIO does the
// same in atomic mode), a nonblocking routine returns a request that is already
// complete, and a split collective's begin call moves the data (MPI lets it) and its
// end call hands back the status.
//
// Otherwise the library's explicit-offset routine of the same kind moves it, in the
// count form the program called: the next definition after piox (next.h), so that
// an I/O monitor preloaded after piox sees it.
#ifndef PIOX_MPIIO_TRANSFER_H
#define PIOX_MPIIO_TRANSFER_H

#include "access_kind.h"
#include "disjoint_writes.h"
#include "locked_transfer.h"
#include "next.h"
#include "open_file.h"
#include "packed_transfer.h"
#include "remapped_read.h"

namespace piox::mpiio {

// True when piox may move accesses of kind A on this file (the shim then hands
// them to piox).
template <typename A>
bool piox_moves(const OpenFile &file)
{
    return file.atomic != nullptr && takes_over(*file.atomic, A::writes);
}

// True when piox moves this access: one piox_moves allows, except a collective
// write on a lockless file system outside atomic mode whose processes' bytes
// interleave (collective: disjoint_writes.h).
template <typename A>
bool piox_moves_this(OpenFile &file, MPI_Offset offset, MPI_Count count, MPI_Datatype datatype)
{
    if (!piox_moves<A>(file))
        return false;
    if constexpr (A::writes && A::collective)
        if (!file.atomic->atomic)
            return writes_are_disjoint(*file.atomic, offset, count, datatype);
    return true;
}

// True when piox reads accesses of kind A through the file's chunk remap
// (remapped_read.h): reads, while the view is the default one.
template <typename A>
bool remaps(const OpenFile &file)
{
    return !A::writes && file.remap != nullptr && file.default_view;
}

// True when piox may carry out accesses of kind A as its aggregate read
// (aggregate_read.h): collective reads (nonblocking ones where the MPI library lets
// MPI_Wait advance piox's requests), outside atomic mode (whose reads take locks).
template <typename A>
bool aggregates(const OpenFile &file)
{
    return !A::writes && A::collective &&
           (A::completion != Completion::nonblocking || kNonblockingAggregates) &&
           file.aggregate != nullptr && (file.atomic == nullptr || !file.atomic->atomic);
}

// After a write the library failed. ROMIO 4.0.2's strided writes return from a
// failed write without releasing the fcntl lock their data sieving took (ROMIO
// patch 0015 mends the standalone build; the ROMIO inside libmpich keeps the bug),
// and the next process to write those bytes would wait forever. Releases every
// fcntl lock this process holds on the file: POSIX record locks belong to the
// process and the file, so piox's own descriptor of it reaches the library's (as
// closing any descriptor of the file would). Locks the program took on the file
// itself go too, as MPI_File_close's closing of piox's descriptor would drop them.
// Not when other threads may be inside the library (MPI_THREAD_MULTIPLE): one of
// them may hold such a lock rightly.
void release_locks_after_failed_write(OpenFile &file);

// How piox hands the library an access it does not move itself.
//   as_called  the library's routine of the kind the program called;
//   packed     an independent access whose memory type's lower bound is off its data
//              (packed_transfer.h): piox packs it and hands over contiguous bytes at
//              an explicit offset (ROMIO writes outside the buffer for such types);
//   blocking   a nonblocking access through a view that is not "native": the
//              library's blocking routine of the same kind (ROMIO 4.0.2's nonblocking
//              routines move native bytes through an external32 view; its blocking
//              ones convert). Every process of a collective one decides alike: the
//              representation is the same on all (MPI_File_set_view is collective).
// Either of the last two finishes a nonblocking access at once. The shim routes
// every call that is not as_called to piox (route.h).
enum class Handoff { as_called, packed, blocking };

template <typename A>
Handoff handoff(const OpenFile &file, MPI_Datatype datatype)
{
    if constexpr (!A::collective && A::completion != Completion::split_begin)
        if (file.native_view && lower_bound_off_data(datatype))
            return Handoff::packed;
    if constexpr (A::completion == Completion::nonblocking)
        if (!file.native_view)
            return Handoff::blocking;
    return Handoff::as_called;
}

// The library's explicit-offset routine for an access of kind A, in form Count.
template <typename A, typename Count>
auto next_at()
{
    constexpr bool collective = A::collective;
    if constexpr (A::completion == Completion::split_begin) {
        if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_write_at_all_begin, Count);
        else
            return PIOX_NEXT_IN_FORM(File_read_at_all_begin, Count);
    } else if constexpr (A::completion == Completion::nonblocking) {
        if constexpr (A::writes && collective)
            return PIOX_NEXT_IN_FORM(File_iwrite_at_all, Count);
        else if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_iwrite_at, Count);
        else if constexpr (collective)
            return PIOX_NEXT_IN_FORM(File_iread_at_all, Count);
        else
            return PIOX_NEXT_IN_FORM(File_iread_at, Count);
    } else {
        if constexpr (A::writes && collective)
            return PIOX_NEXT_IN_FORM(File_write_at_all, Count);
        else if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_write_at, Count);
        else if constexpr (collective)
            return PIOX_NEXT_IN_FORM(File_read_at_all, Count);
        else
            return PIOX_NEXT_IN_FORM(File_read_at, Count);
    }
}

// The library's individual-pointer routine for an access of kind A, in form Count.
template <typename A, typename Count>
auto next_by_pointer()
{
    constexpr bool collective = A::collective;
    if constexpr (A::completion == Completion::split_begin) {
        if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_write_all_begin, Count);
        else
            return PIOX_NEXT_IN_FORM(File_read_all_begin, Count);
    } else if constexpr (A::completion == Completion::nonblocking) {
        if constexpr (A::writes && collective)
            return PIOX_NEXT_IN_FORM(File_iwrite_all, Count);
        else if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_iwrite, Count);
        else if constexpr (collective)
            return PIOX_NEXT_IN_FORM(File_iread_all, Count);
        else
            return PIOX_NEXT_IN_FORM(File_iread, Count);
    } else {
        if constexpr (A::writes && collective)
            return PIOX_NEXT_IN_FORM(File_write_all, Count);
        else if constexpr (A::writes)
            return PIOX_NEXT_IN_FORM(File_write, Count);
        else if constexpr (collective)
            return PIOX_NEXT_IN_FORM(File_read_all, Count);
        else
            return PIOX_NEXT_IN_FORM(File_read, Count);
    }
}

// Calls the library's routine for an access of kind A at offset, positioned as P:
// next(fh, [offset,] buf, count, datatype[, out]). At the individual pointer, the
// library's pointer is sought to offset first unless it is in step
// (OpenFile::library_pointer_in_step): then the call reaches the library exactly as
// the program made it.
// A write the library fails has the locks it left released
// (release_locks_after_failed_write).
template <typename A, Positioning P, typename Count, typename Buffer, typename... Out>
int call_library(OpenFile &file, MPI_Offset offset, Buffer buf, Count count,
                 MPI_Datatype datatype, Out... out)
{
    int rc = MPI_SUCCESS;
    if constexpr (P == Positioning::explicit_offset) {
        rc = next_at<A, Count>()(file.fh, offset, buf, count, datatype, out...);
    } else {
        if (!file.library_pointer_in_step)
            if (rc = PIOX_NEXT_ROUTINE(File_seek)(file.fh, offset, MPI_SEEK_SET);
                rc != MPI_SUCCESS)
                return rc;
        rc = next_by_pointer<A, Count>()(file.fh, buf, count, datatype, out...);
    }
    if constexpr (A::writes)
        if (rc != MPI_SUCCESS)
            release_locks_after_failed_write(file);
    return rc;
}

// The request of a nonblocking access piox has finished: complete, carrying status
// (completed_request.h). rc is the transfer's code, already raised.
int finished_request(OpenFile &file, int rc, const MPI_Status &status, MPI_Request *request);

// Finishes an access that piox moves itself, at once, with move(status): a blocking
// access returns its status; a nonblocking one, a request already complete; a split
// collective's begin keeps the status for its end call, once move succeeded (a mover
// that declines, such as aggregate_read's kNotAggregated, leaves no trace).
template <typename A, typename Out, typename Move>
int moved_at_once(OpenFile &file, Out out, Move move)
{
    if constexpr (A::completion == Completion::blocking) {
        return move(out);
    } else if constexpr (A::completion == Completion::nonblocking) {
        MPI_Status status{};
        const int rc = move(&status);
        return finished_request(file, rc, status, out);
    } else {
        const int rc = move(&file.split.status);
        if (rc == MPI_SUCCESS)
            file.split.kind = out, file.split.forwarded = false;
        return rc;
    }
}

// Moves count items of datatype at offset, positioned as P. `out` is the access's
// status (blocking), its request (nonblocking), or which split collective it begins
// (split_begin).
template <typename A, Positioning P = Positioning::explicit_offset, typename Count,
          typename Out>
int transfer_at(OpenFile &file, MPI_Offset offset, BufferOf<A::direction> buf, Count count,
                MPI_Datatype datatype, Out out)
{
    void *data = const_cast<void *>(static_cast<const void *>(buf));
    if constexpr (!A::writes) {
        if (remaps<A>(file)) {
            if constexpr (P == Positioning::individual_pointer)
                file.library_pointer_in_step = false;  // piox reads at explicit offsets
            return moved_at_once<A>(file, out, [&](MPI_Status *status) {
                return remapped_read(file, offset, data, count, datatype, status);
            });
        }
    }
    if (aggregates<A>(file)) {
        int rc = kNotAggregated;
        if constexpr (A::completion == Completion::nonblocking)
            rc = aggregate_iread(file, offset, data, count, datatype, out);
        else
            rc = moved_at_once<A>(file, out, [&](MPI_Status *status) {
                return aggregate_read(file, offset, data, count, datatype, status);
            });
        if (rc != kNotAggregated) {
            if constexpr (P == Positioning::individual_pointer)
                file.library_pointer_in_step = false;  // piox reads at explicit offsets
            return rc;
        }
    }
    if (piox_moves_this<A>(file, offset, count, datatype)) {
        if constexpr (P == Positioning::individual_pointer)
            file.library_pointer_in_step = false;  // piox moves it at an explicit offset
        return moved_at_once<A>(file, out, [&](MPI_Status *status) {
            return locked_transfer(*file.atomic, A::direction, offset, data, count, datatype,
                                   file.etype_size, status);
        });
    }
    const Handoff how = handoff<A>(file, datatype);
    if constexpr (!A::collective && A::completion != Completion::split_begin) {
        if (how == Handoff::packed) {
            if constexpr (P == Positioning::individual_pointer)
                file.library_pointer_in_step = false;
            return moved_at_once<A>(file, out, [&](MPI_Status *status) {
                return library_transfer(file.fh, A::direction, offset, data, count, datatype,
                                        file.etype_size, true, status);
            });
        }
    }
    if constexpr (A::completion == Completion::nonblocking) {
        if (how == Handoff::blocking) {
            using Blocking = Access<A::direction, A::collective, Completion::blocking>;
            MPI_Status status{};
            const int rc = call_library<Blocking, P>(file, offset, buf, count, datatype, &status);
            return finished_request(file, rc, status, out);
        }
    }
    if constexpr (A::completion == Completion::split_begin) {
        const int rc = call_library<A, P>(file, offset, buf, count, datatype);
        if (rc == MPI_SUCCESS)
            file.split.kind = out, file.split.forwarded = true;
        return rc;
    } else {
        return call_library<A, P>(file, offset, buf, count, datatype, out);
    }
}

// MPI_ERR_IO (raised) when the file has a split collective outstanding: a begin
// call must not start another (MPI-3.1 13.4.5).
int check_no_split(OpenFile &file, const char *routine);

// The end call of a split collective of kind `expected`: the library's, when it
// holds it, else the status piox kept. MPI_ERR_IO when no such begin is outstanding.
int end_split(OpenFile &file, const char *routine, SplitKind expected, const void *buf,
              MPI_Status *status);

}  // namespace piox::mpiio

#endif
