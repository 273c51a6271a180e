// Open, close and finalize: see lifecycle.h.
#include "lifecycle.h"

#include "config.h"
#include "errors.h"
#include "piox_log.h"
#include "registry.h"
#include "stats.h"

#include <string>

namespace piox::shim::lifecycle {

int File_open(decltype(&PMPI_File_open) real, MPI_Comm comm, const char *filename, int amode,
              MPI_Info info, MPI_File *fh)
{
    // Leave every check of the arguments to the library: an invalid communicator or
    // name fails there, with the library's own error.
    int comm_size = 0;
    if (comm == MPI_COMM_NULL || filename == nullptr || fh == nullptr ||
        PMPI_Comm_size(comm, &comm_size) != MPI_SUCCESS)
        return real(comm, filename, amode, info, fh);

    FileConfig config;
    int rc = file_config(comm, info, &config);
    if (rc == MPI_ERR_NOT_SAME)
        return mpiio::raise_error(MPI_FILE_NULL, MPI_ERR_NOT_SAME,
                                  std::string("MPI_File_open of '") + filename +
                                      "': piox hints or PIOX_* settings differ between processes");
    if (rc != MPI_SUCCESS)
        return mpiio::raise_code(MPI_FILE_NULL, rc);
    if (!config.sfp) {
        piox_debug("'%s': shared file pointer left to the MPI library", filename);
        return real(comm, filename, amode, info, fh);
    }

    rc = real(comm, filename, mpiio::amode_for_library(amode), info, fh);
    if (rc != MPI_SUCCESS)
        return rc;
    auto record = std::make_shared<FileRecord>();
    rc = mpiio::attach(*fh, comm, filename, amode, config.sfp_options, &record->sfp);
    if (rc != MPI_SUCCESS) {
        PMPI_File_close(fh);
        return mpiio::raise_error(MPI_FILE_NULL, MPI_ERR_OTHER,
                                  std::string("MPI_File_open of '") + filename +
                                      "': cannot create the shared file pointer");
    }
    file_registry().add(*fh, std::move(record));
    return MPI_SUCCESS;
}

int File_close(decltype(&PMPI_File_close) real, MPI_File *fh)
{
    std::shared_ptr<FileRecord> record = fh != nullptr ? file_registry().remove(*fh) : nullptr;
    if (record != nullptr && record->sfp != nullptr) {
        if (job_config().stats)
            print_file_stats(*record);
        int rc = mpiio::detach(*record->sfp);
        if (rc != MPI_SUCCESS)
            piox_warn("closing '%s': freeing the shared file pointer failed (error %d)",
                      record->sfp->filename.c_str(), rc);
    }
    return real(fh);
}

int Finalize(decltype(&PMPI_Finalize) real)
{
    // Files still open at MPI_Finalize are the program's error. Their windows cannot
    // be freed collectively here (processes may have different files open), so only
    // our memory is released; MPI_Finalize reclaims the MPI objects.
    for (auto &record : file_registry().remove_all()) {
        if (record->sfp != nullptr) {
            piox_debug("'%s' still open at MPI_Finalize", record->sfp->filename.c_str());
            if (job_config().stats)
                print_file_stats(*record);
        }
    }
    return real();
}

}  // namespace piox::shim::lifecycle

namespace piox::shim {

int closed_handle_error(Routine routine)
{
    return mpiio::raise_error(MPI_FILE_NULL, MPI_ERR_FILE,
                              std::string(kRoutineNames[static_cast<size_t>(routine)]) +
                                  ": the file handle belongs to a file that was closed");
}

}  // namespace piox::shim
