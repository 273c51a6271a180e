// piox moves the data of an access it takes over (atomic mode; on a lockless file
// system, independent writes) itself, on its own descriptor of the file, with the
// access's bytes locked: by data sieving when that pays, else piece by piece.
//
// Why not the library: piox knows where every byte of the access goes (the view
// flattened by the adio core, piox_view.h, which follows the standard's typemap
// rules), while ROMIO 4.0.2, with write sieving off as piox needs it, misplaces
// accesses through some views: after MPI_File_seek with a filetype
// resized(int, 4, 12) it writes one int of two; a filetype of resized blocks nested
// in an indexed type puts its second etype 132 bytes off. And ROMIO's write
// sieving patches other processes' bytes under its own fcntl lock, which fails on
// lockless file systems and does not exclude piox's range-locked writers.
//
//   sieved write: lock the whole span (gaps included) in write mode, read it, patch
//                 the access's bytes in, write it back (piox_lock_sieved_write: on
//                 one node the lock combines the writes queued for one span into
//                 one such pass).
//   sieved read:  lock the exact extents in read mode, read the span, release, keep the pieces.
//   piece by piece: lock the exact extents, one pread/pwrite per piece.
// Sieving is chosen when a cost model (own_transfer.cpp) says the system calls it
// saves outweigh the extra bytes it moves: many small pieces in a modest span. A
// sparse access of few large pieces goes piece by piece, so writers interleaved with
// it never wait for it.
//
// An access over 4 MiB, or in over 64 Ki pieces, is locked once as a whole (a write
// its whole span, a read its extents, coarsened) and moved a chunk of at most 4 MiB
// at a time, each chunk mapped exactly; the buffer is packed a chunk of whole items
// at a time.
//
// The library still moves (locked_transfer.h) a view whose data representation is
// not "native", an access piox cannot map exactly (a single item of over 4 MiB of a
// noncontiguous memory type), and everything when an I/O monitor follows piox
// (next.h), so that it sees every byte.
//
// A read that reaches the end of the file reads what is there and counts the whole
// etypes it got (status and, for the individual pointer, the pointer's advance: MPI-3.1
// 13.4.3); the buffer past them is left as it was, as far as the bytes are not in the file.
#ifndef PIOX_MPIIO_OWN_TRANSFER_H
#define PIOX_MPIIO_OWN_TRANSFER_H

#include "atomic_file.h"

namespace piox::mpiio {

// Opens piox's own descriptor of the file (the path without ROMIO's "fs:" prefix);
// piox then leaves every access to the library when that fails. Not collective.
void open_own_descriptor(AtomicFile &file, int amode);
void close_own_descriptor(AtomicFile &file);
// MPI_File_sync: flushes what was written through piox's descriptor (MPI_ERR_IO,
// raised, when that fails).
int sync_own_descriptor(AtomicFile &file);

// Moves the data of an access of count x datatype at offset (etypes of the view, of
// etype_size bytes each) with its bytes locked, when piox can: returns true and sets
// *rc (an MPI error code, already raised). Returns false, having done nothing,
// when the access should go through the library instead.
bool own_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                  MPI_Count count, MPI_Datatype datatype, MPI_Count etype_size,
                  MPI_Status *status, int *rc);

}  // namespace piox::mpiio

#endif
