// The shim's own handlers for opening and closing files (which create and destroy
// their records) and for finalisation (part `lifecycle` in routines.def).
#ifndef PIOX_SHIM_LIFECYCLE_H
#define PIOX_SHIM_LIFECYCLE_H

#include <mpi.h>

namespace piox::shim::lifecycle {

int Finalize(decltype(&PMPI_Finalize) next);
int File_open(decltype(&PMPI_File_open) next, MPI_Comm comm, const char *filename, int amode,
              MPI_Info info, MPI_File *fh);
int File_close(decltype(&PMPI_File_close) next, MPI_File *fh);

}  // namespace piox::shim::lifecycle

#endif
