// The life of a file's shared pointer: created right after the library opens the
// file, reset by every MPI_File_set_view, freed at close. Also keeps
// MPI_MODE_APPEND away from the library (see amode_for_library).
#include "sfp_file.h"

#include "errors.h"
#include "piox_log.h"

namespace piox::mpiio {

int amode_for_library(int amode) { return amode & ~MPI_MODE_APPEND; }

int attach(MPI_File fh, MPI_Comm comm, const char *filename, int amode,
           const SfpOptions &options, std::unique_ptr<SfpFile> *out)
{
    auto file = std::make_unique<SfpFile>();
    file->fh = fh;
    file->filename = filename;
    file->amode = amode;
    file->options = options;

    // MPI_MODE_APPEND: both pointers start at the end of the file. The view is
    // still the default byte view, so the size in bytes is the position in etypes.
    int rc = MPI_SUCCESS;
    MPI_Offset initial = 0;
    if (amode & MPI_MODE_APPEND) {
        rc = PMPI_File_seek(fh, 0, MPI_SEEK_END);
        if (rc == MPI_SUCCESS)
            rc = PMPI_File_get_size(fh, &initial);
    }
    int all_ok = 0, ok = rc == MPI_SUCCESS;
    int rc2 = PMPI_Comm_dup(comm, &file->comm);
    if (rc2 == MPI_SUCCESS)
        rc2 = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, file->comm);
    if (rc2 == MPI_SUCCESS && all_ok)
        rc2 = piox_sfp_create(file->comm, initial, options.transport, &file->pointer);
    if (rc2 != MPI_SUCCESS || !all_ok) {
        if (file->comm != MPI_COMM_NULL)
            PMPI_Comm_free(&file->comm);
        return rc != MPI_SUCCESS ? rc : (rc2 != MPI_SUCCESS ? rc2 : MPI_ERR_OTHER);
    }
    piox_debug("'%s': shared file pointer over %s, initial position %lld, ordered I/O %s",
               filename, piox_sfp_transport_name(file->pointer),
               static_cast<long long>(initial),
               options.collective_ordered_io ? "collective" : "independent");
    *out = std::move(file);
    return MPI_SUCCESS;
}

int detach(SfpFile &file)
{
    if (file.split != SplitOrdered::none)
        piox_warn("'%s' closed with a split ordered collective outstanding",
                  file.filename.c_str());  // erroneous (MPI-3.1 13.4.5); the data has moved
    int rc = piox_sfp_free(&file.pointer);
    int rc2 = PMPI_Comm_free(&file.comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int File_set_view(SfpFile &file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info)
{
    int rc = PMPI_File_set_view(file.fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS) {
        MPI_Count size = 1;
        PMPI_Type_size_x(etype, &size);
        file.etype_size = size > 0 ? size : 1;
    }
    // MPI_File_set_view resets the shared pointer to zero (MPI-3.1 13.3). Every
    // process takes part, even one whose set_view failed, so that none is left waiting.
    int reset = piox_sfp_update(file.pointer, PIOX_SFP_SET, 0, nullptr);
    if (rc != MPI_SUCCESS)
        return rc;  // the library already invoked the error handler
    return raise_code(file.fh, reset);
}

int File_get_amode(SfpFile &file, int *amode)
{
    int rc = PMPI_File_get_amode(file.fh, amode);
    if (rc == MPI_SUCCESS)
        *amode |= file.amode & MPI_MODE_APPEND;
    return rc;
}

}  // namespace piox::mpiio
