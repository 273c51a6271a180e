// Collective writes on a lockless file system whose processes write disjoint bytes:
// piox moves them itself, each process its own part, under its range locks.
//
// Why: piox turns ROMIO's write data sieving off on lockless file systems (its
// fcntl lock would fail). ROMIO's collective write sends an access whose processes'
// byte ranges do not interleave to its independent strided writer, which with
// sieving off misplaces data for some views: a filetype resized(int, 4, 12) and 2
// ints by MPI_File_write_all put the second int at byte 0 and left the first out.
// Interleaved ranges still go to ROMIO's two-phase collective buffering, which
// places them right and needs no lock.
#ifndef PIOX_MPIIO_DISJOINT_WRITES_H
#define PIOX_MPIIO_DISJOINT_WRITES_H

#include "atomic_file.h"

namespace piox::mpiio {

// Collective over the file's processes: true on every process when the byte ranges
// (first to last byte) of their accesses of count x datatype at offset (etypes of
// the view) are pairwise disjoint. False everywhere when any process cannot tell (a
// bad argument: the library then judges it) or the exchange fails.
bool writes_are_disjoint(AtomicFile &file, MPI_Offset offset, MPI_Count count,
                         MPI_Datatype datatype);

}  // namespace piox::mpiio

#endif
