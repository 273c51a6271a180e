// The shared-file-pointer part of MPI-IO, rebuilt on PMPI and the adio core: the
// per-file state, and one function for each routine of MPI-3.1 section 13.4.4 that
// it takes over. Each function has the MPI routine's name and arguments, with the
// file handle replaced by the file's state; the shim calls them.
//
// Positions are in etypes of the current view. Data moves with the explicit-offset
// routines of the MPI library underneath (MPI_File_write_at and friends), so every
// view and datatype the library supports works here too.
#ifndef PIOX_MPIIO_SFP_FILE_H
#define PIOX_MPIIO_SFP_FILE_H

#include "piox_sfp.h"

#include <mpi.h>

#include <memory>
#include <string>

namespace piox::mpiio {

struct SfpOptions {
    piox_sfp_transport transport = PIOX_SFP_TRANSPORT_AUTO;
    // Ordered-mode data moves with MPI_File_{read,write}_at_all instead of the
    // independent routines (worth it for many small accesses across nodes).
    bool collective_ordered_io = false;
};

// The one split collective a file may have outstanding (MPI-3.1 13.4.5).
enum class SplitOrdered { none, read, write };

struct AtomicFile;

struct SfpFile {
    MPI_File fh = MPI_FILE_NULL;
    MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the opening communicator
    std::string filename;
    int amode = 0;  // as the program asked, MPI_MODE_APPEND included
    SfpOptions options;
    piox_sfp *pointer = nullptr;
    MPI_Count etype_size = 1;
    SplitOrdered split = SplitOrdered::none;
    MPI_Status split_status{};  // of the transfer the begin call made
    AtomicFile *atomic = nullptr;  // the file's atomic-mode state, when piox manages it
};

// The access mode to hand to the MPI library's MPI_File_open. MPI_MODE_APPEND is
// kept from it (piox positions the pointers itself), because ROMIO answers that
// flag by creating its hidden shared-pointer file.
int amode_for_library(int amode);

// Collective over comm, right after the library opened fh. Positions the
// individual pointer at the end for MPI_MODE_APPEND and creates the shared pointer.
int attach(MPI_File fh, MPI_Comm comm, const char *filename, int amode,
           const SfpOptions &options, std::unique_ptr<SfpFile> *out);

// Collective: frees the shared pointer.
int detach(SfpFile &file);

int File_set_view(SfpFile &file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info);
int File_get_amode(SfpFile &file, int *amode);

int File_read_shared(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int File_write_shared(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int File_iread_shared(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int File_iwrite_shared(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);

int File_read_ordered(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int File_write_ordered(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int File_read_ordered_begin(SfpFile &file, void *buf, int count, MPI_Datatype datatype);
int File_write_ordered_begin(SfpFile &file, const void *buf, int count,
                             MPI_Datatype datatype);
int File_read_ordered_end(SfpFile &file, void *buf, MPI_Status *status);
int File_write_ordered_end(SfpFile &file, const void *buf, MPI_Status *status);

int File_seek_shared(SfpFile &file, MPI_Offset offset, int whence);
int File_get_position_shared(SfpFile &file, MPI_Offset *offset);

}  // namespace piox::mpiio

#endif
