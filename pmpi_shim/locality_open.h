// Locality for unmodified programs, set up at MPI_File_open (issue 16). A program that
// reads its share of a file at rank * (size / nprocs), never asking where the data is,
// gets locality from outside, in one of two modes, opted into per file (the hint
// piox_locality, or PIOX_LOCALITY for the files under PIOX_LOCALITY_PATHS):
//
//   remap      reads see the file's chunks in another order, one in which each rank's
//              share is stored on its own host (mpiio/chunk_remap.h). The program sees
//              a permutation of the chunks: right only for order-independent
//              processing. Read-only files only.
//   aggregate  collective reads are piox's two-phase reads by ranks on the hosts that
//              store the chunks (mpiio/aggregate_read.h). The program's bytes are
//              unchanged.
#ifndef PIOX_SHIM_LOCALITY_OPEN_H
#define PIOX_SHIM_LOCALITY_OPEN_H

#include "config.h"
#include "open_file.h"

#include <mpi.h>

namespace piox::shim {

// Collective over comm, after the library opened the file: sets file.remap or
// file.aggregate when the program asked for that mode and it can help, else leaves
// both null with a PIOX_DEBUG line saying why (a file opened for writing, for remap;
// storage libdli cannot describe; a placement where remapping makes no more bytes
// local). Rank 0 asks the storage for the chunk table once (libdli); every process
// then computes the same plan, so all decide alike.
void attach_locality(MPI_Comm comm, int amode, MPI_Info info, const FileConfig &config,
                     mpiio::OpenFile &file);

// Collective (MPI_File_close): frees what attach_locality set up.
void detach_locality(mpiio::OpenFile &file);

}  // namespace piox::shim

#endif
