// Data sieving done by piox itself in atomic mode, on its own descriptor of the
// file: a noncontiguous access made of many small pieces becomes one pread (and,
// for a write, one pwrite) of the whole span, instead of one system call per piece.
//
// Why not leave it to the library: ROMIO's write sieving patches other processes'
// bytes under its own fcntl lock, which fails on lockless file systems and does not
// exclude piox's range-locked writers, so atomic mode turns it off (atomic_file.cpp);
// and the library sieves in windows of its ind_rd/ind_wr_buffer_size hints.
//
//   write: lock the whole span (gaps included) in write mode, read it, patch the
//          access's bytes in, write it back.
//   read:  lock the exact extents in read mode, read the span, keep the pieces.
// Sieving is chosen when a cost model (atomic_sieve.cpp) says the system calls it
// saves outweigh the extra bytes it moves: many small pieces in a modest span. A
// sparse access of few large pieces goes piece by piece under exact locks, so
// writers interleaved with it never wait for it. Nor does piox sieve when an I/O
// monitor follows it (next.h): the data then goes through the monitor's routines,
// so that it sees every byte.
#ifndef PIOX_MPIIO_ATOMIC_SIEVE_H
#define PIOX_MPIIO_ATOMIC_SIEVE_H

#include "atomic_file.h"

namespace piox::mpiio {

// Opens piox's own descriptor of the file (the path without ROMIO's "fs:" prefix);
// sieving is simply not used when that fails. Not collective.
void open_sieve_descriptor(AtomicFile &file, int amode);
void close_sieve_descriptor(AtomicFile &file);
// MPI_File_sync: flushes what was written through piox's descriptor (MPI_ERR_IO,
// raised, when that fails).
int sync_sieve_descriptor(AtomicFile &file);

// Moves the data of an access of count x datatype at offset (etypes of the view)
// by sieving, with the locks held, when that is worth it: returns true and sets
// *rc (an MPI error code, already raised). Returns false, having done nothing,
// when the access should go through the library instead.
bool sieved_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                     MPI_Count count, MPI_Datatype datatype, MPI_Status *status, int *rc);

}  // namespace piox::mpiio

#endif
