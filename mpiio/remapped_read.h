// Reads of a file piox remaps (chunk_remap.h): each piece of the logical range,
// split at chunk boundaries, is read at its physical offset by the library's
// MPI_File_read_at (the next definition after piox, so a monitor sees every byte).
//
// Every read form (collective, nonblocking, split, at the individual pointer) reads
// independently and at once (transfer.h): a collective read of remapped chunks gains
// nothing from the library's two-phase I/O, whose aggregators would read other
// hosts' chunks again.
#ifndef PIOX_MPIIO_REMAPPED_READ_H
#define PIOX_MPIIO_REMAPPED_READ_H

#include "open_file.h"

#include <mpi.h>

namespace piox::mpiio {

// count items of datatype at byte `offset` of file (its view the default one, whose
// offsets are bytes), through file.remap. Bad arguments (a negative offset or count,
// an invalid type) go to the library's MPI_File_read_at as they are, which judges
// them as stock MPI would.
template <typename Count>
int remapped_read(OpenFile &file, MPI_Offset offset, void *buf, Count count,
                  MPI_Datatype datatype, MPI_Status *status);

}  // namespace piox::mpiio

#endif
