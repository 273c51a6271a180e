// Locality remapping for unmodified programs (DL-MPI, section II.B): a program that
// reads its share of a file at rank * (size / nprocs), never asking where the data
// is, reads chunks stored on its own host, because piox shows it the file's chunks
// in another order (mpiio/chunk_remap.h).
//
// Opted into per file, since the program then sees a permutation of the file's
// chunks (right only for order-independent processing): the hint
// piox_locality=remap, or PIOX_LOCALITY=remap for the files under
// PIOX_LOCALITY_PATHS. Read-only files only.
#ifndef PIOX_SHIM_LOCALITY_REMAP_H
#define PIOX_SHIM_LOCALITY_REMAP_H

#include "chunk_remap.h"
#include "config.h"

#include <mpi.h>

#include <memory>

namespace piox::shim {

// Collective over comm, after the library opened the file: the file's remap, or null
// when the program did not ask for one or it cannot help (with a PIOX_DEBUG line
// saying why: a file opened for writing, storage libdli cannot describe, a placement
// where no permutation makes more bytes local). Rank 0 asks the storage for the
// chunk table once (libdli); every rank computes the same permutation from the
// scheduler's static assignment: each rank's contiguous share of the file, as the
// program computes it, then holds the chunks assigned to that rank. Every process
// returns alike (null on all, or a remap on all).
std::unique_ptr<mpiio::ChunkRemap> remap_for_open(MPI_Comm comm, const char *filename,
                                                  int amode, MPI_Info info,
                                                  const FileConfig &config);

}  // namespace piox::shim

#endif
