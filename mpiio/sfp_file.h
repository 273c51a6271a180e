// The shared-file-pointer part's state of a file (MPI-3.1 section 13.4.4), rebuilt
// on the adio core: created right after the library opens the file, reset by every
// MPI_File_set_view, freed at close. The routines that use it are in data_access.h.
//
// Positions are in etypes of the current view. Data moves with the library's
// explicit-offset routines (or piox's locked ones in atomic mode), so every view and
// datatype the library supports works here too.
#ifndef PIOX_MPIIO_SFP_FILE_H
#define PIOX_MPIIO_SFP_FILE_H

#include "piox_sfp.h"

#include <mpi.h>

#include <memory>

namespace piox::mpiio {

struct SfpOptions {
    piox_sfp_transport transport = PIOX_SFP_TRANSPORT_AUTO;
    // Ordered-mode data moves with MPI_File_{read,write}_at_all instead of the
    // independent routines (worth it for many small accesses across nodes).
    bool collective_ordered_io = false;
};

// Its collectives besides the pointer's own use the file's private communicator
// (OpenFile::comm).
struct SfpFile {
    SfpOptions options;
    piox_sfp *pointer = nullptr;
};

// Collective over comm (the file's private communicator), right after the library
// opened the file: the pointer starts at `initial` (etypes; the end of the file for
// MPI_MODE_APPEND).
int attach(MPI_Comm comm, const char *filename, MPI_Offset initial, const SfpOptions &options,
           std::unique_ptr<SfpFile> *out);

// Collective: frees the shared pointer (not the communicator lent to attach).
int detach(SfpFile &file);

// Collective (MPI_File_set_view): the pointer back to 0.
int reset_shared_pointer(SfpFile &file);

}  // namespace piox::mpiio

#endif
