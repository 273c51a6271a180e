// Files opened with MPI_MODE_SEQUENTIAL, the "sequential stream files" of MPI-3.1
// 13.6 (logs, pipes, tapes): only shared-pointer reads and writes may access their
// data. Explicit offsets and individual pointers (13.4.2, 13.4.3, but for
// MPI_File_get_byte_offset), MPI_File_seek_shared and MPI_File_get_position_shared,
// MPI_File_set_size and MPI_File_preallocate are erroneous; a view's displacement
// must be MPI_DISPLACEMENT_CURRENT (13.3) and its etype and filetype must have no
// holes.
//
// When piox manages the shared pointer it keeps the mode from the library (which
// would refuse the explicit-offset routines piox moves the shared-pointer data with)
// and enforces these rules itself, with ROMIO's error classes:
// MPI_ERR_UNSUPPORTED_OPERATION for a routine, MPI_ERR_ARG for a displacement, and
// MPI_ERR_TYPE for a type with holes.
#ifndef PIOX_MPIIO_SEQUENTIAL_H
#define PIOX_MPIIO_SEQUENTIAL_H

#include "open_file.h"

namespace piox::mpiio {

// MPI_ERR_UNSUPPORTED_OPERATION, raised: routine may not be called on the file.
int refuse_on_sequential(OpenFile &file, const char *routine);

// For MPI_File_set_view on a sequential file whose shared pointer piox manages:
// checks the arguments, then (collective, over the shared pointer's communicator)
// replaces MPI_DISPLACEMENT_CURRENT by the byte position of the shared pointer in
// the current view. Errors are raised.
int resolve_sequential_view(OpenFile &file, MPI_Offset *disp, MPI_Datatype etype,
                            MPI_Datatype filetype);

}  // namespace piox::mpiio

#endif
