// The shim's handlers for the routines that concern every part of a managed file
// (part `record` in routines.def): its view, its hints, its access mode, its size
// and its flushing. Each gets the next routine, the file's record (null for a file
// piox does not manage, which goes straight on) and the arguments.
#ifndef PIOX_SHIM_FILE_ROUTINES_H
#define PIOX_SHIM_FILE_ROUTINES_H

#include <mpi.h>

namespace piox::shim {
struct FileRecord;
}

namespace piox::shim::file_routines {

// Resets both pointers, makes atomic mode re-flatten the view, and on an
// MPI_MODE_SEQUENTIAL file resolves MPI_DISPLACEMENT_CURRENT (mpiio/sequential.h).
int File_set_view(decltype(&PMPI_File_set_view) next, FileRecord *record, MPI_File fh,
                  MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info);
// The library's hints plus piox's, as in effect for the file (piox_sfp,
// piox_sfp_transport, piox_ordered_io, piox_atomic, piox_atomic_lock, piox_lockless).
int File_get_info(decltype(&PMPI_File_get_info) next, FileRecord *record, MPI_File fh,
                  MPI_Info *info_used);
// piox_ordered_io may change after open (collectively); the other piox_* hints only
// keep their value, else MPI_ERR_INFO_VALUE. The library gets the other hints.
int File_set_info(decltype(&PMPI_File_set_info) next, FileRecord *record, MPI_File fh,
                  MPI_Info info);
// The access mode as the program asked for it (MPI_MODE_APPEND and
// MPI_MODE_SEQUENTIAL included, which piox may keep from the library).
int File_get_amode(decltype(&PMPI_File_get_amode) next, FileRecord *record, MPI_File fh,
                   int *amode);
// Erroneous on MPI_MODE_SEQUENTIAL files.
int File_set_size(decltype(&PMPI_File_set_size) next, FileRecord *record, MPI_File fh,
                  MPI_Offset size);
int File_preallocate(decltype(&PMPI_File_preallocate) next, FileRecord *record, MPI_File fh,
                     MPI_Offset size);
// Also flushes what atomic mode wrote through piox's own descriptor.
int File_sync(decltype(&PMPI_File_sync) next, FileRecord *record, MPI_File fh);

}  // namespace piox::shim::file_routines

#endif
