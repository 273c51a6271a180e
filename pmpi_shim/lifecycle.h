// The shim's own handlers (parts `lifecycle` and `record` in routines.def): opening
// and closing files, which creates and destroys their records, finalisation, and the
// routines that concern every part of a file (its view, its info).
#ifndef PIOX_SHIM_LIFECYCLE_H
#define PIOX_SHIM_LIFECYCLE_H

#include <mpi.h>

namespace piox::shim {
struct FileRecord;
}

namespace piox::shim::lifecycle {

int Finalize(decltype(&PMPI_Finalize) real);
int File_open(decltype(&PMPI_File_open) real, MPI_Comm comm, const char *filename, int amode,
              MPI_Info info, MPI_File *fh);
int File_close(decltype(&PMPI_File_close) real, MPI_File *fh);
// The library's hints plus piox's, as in effect for the file (piox_sfp,
// piox_sfp_transport, piox_atomic, piox_atomic_lock, piox_lockless).
int File_get_info(decltype(&PMPI_File_get_info) real, FileRecord *record, MPI_File fh,
                  MPI_Info *info_used);
// Resets the shared pointer and makes atomic mode re-flatten the view.
int File_set_view(decltype(&PMPI_File_set_view) real, FileRecord *record, MPI_File fh,
                  MPI_Offset disp,
                  MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info);

}  // namespace piox::shim::lifecycle

#endif
