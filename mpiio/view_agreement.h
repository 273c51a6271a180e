// MPI_File_set_view's arguments that must be the same on every process (MPI-3.1
// 13.3): the data representation and the etype's extent in it. Filetypes,
// displacements and info may differ. Processes that disagree would count the shared
// pointer in etypes of different sizes and write over each other's data, silently;
// ROMIO does not check.
#ifndef PIOX_MPIIO_VIEW_AGREEMENT_H
#define PIOX_MPIIO_VIEW_AGREEMENT_H

#include "open_file.h"

#include <mpi.h>

namespace piox::mpiio {

// Collective over file.comm (nothing to do without it), after the library's
// MPI_File_set_view, which succeeded on this process when set_here: MPI_SUCCESS, or
// on every process an MPI_ERR_NOT_SAME code (not yet raised) when the views were set
// everywhere with different data representations or etype extents. The views stay
// as the library set them: the call was erroneous. A process whose set_view failed
// reports its own error, and the others are not checked.
int check_view_agrees(const OpenFile &file, MPI_Datatype etype, const char *datarep, bool set_here);

}  // namespace piox::mpiio

#endif
