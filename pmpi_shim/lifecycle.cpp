// Open, close and finalize: see lifecycle.h.
#include "lifecycle.h"

#include "config.h"
#include "errors.h"
#include "piox_log.h"
#include "registry.h"
#include "route.h"
#include "stats.h"

#include <string>
#include <utility>

namespace piox::shim::lifecycle {
namespace {

// Collective: frees what each part of piox keeps for the file.
void release_parts(FileRecord &record)
{
    const char *name = record.filename();
    if (record.sfp != nullptr && mpiio::detach(*record.sfp) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing the shared file pointer failed", name);
    if (record.atomic != nullptr && mpiio::detach(*record.atomic) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing the atomic-mode locks failed", name);
    record.sfp.reset();
    record.atomic.reset();
}

}  // namespace

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
    bool lockless = false;
    rc = mpiio::file_is_lockless(comm, filename, config.lockless, &lockless);
    if (rc != MPI_SUCCESS)
        return mpiio::raise_code(MPI_FILE_NULL, rc);
    if (!config.sfp && !config.atomic && !lockless) {
        piox_debug("'%s': left to the MPI library", filename);
        return real(comm, filename, amode, info, fh);
    }

    MPI_Info library_info = MPI_INFO_NULL;
    if (lockless && (rc = mpiio::info_for_lockless(info, &library_info)) != MPI_SUCCESS)
        return mpiio::raise_code(MPI_FILE_NULL, rc);
    rc = real(comm, filename, config.sfp ? mpiio::amode_for_library(amode) : amode,
              lockless ? library_info : info, fh);
    if (library_info != MPI_INFO_NULL)
        PMPI_Info_free(&library_info);
    if (rc != MPI_SUCCESS)
        return rc;

    auto record = std::make_shared<FileRecord>();
    record->lockless = lockless;
    const char *failed = nullptr;
    if (config.sfp &&
        mpiio::attach(*fh, comm, filename, amode, config.sfp_options, &record->sfp) != MPI_SUCCESS)
        failed = "cannot create the shared file pointer";
    if (failed == nullptr && config.atomic &&
        mpiio::attach(*fh, comm, filename, amode, lockless, config.atomic_options,
                      &record->atomic) != MPI_SUCCESS)
        failed = "cannot set up atomic mode";
    if (failed != nullptr) {
        release_parts(*record);
        PMPI_File_close(fh);
        return mpiio::raise_error(MPI_FILE_NULL, MPI_ERR_OTHER,
                                  std::string("MPI_File_open of '") + filename + "': " + failed);
    }
    if (record->sfp != nullptr)
        record->sfp->atomic = record->atomic.get();  // shared-pointer accesses lock in atomic mode
    file_registry().add(*fh, std::move(record));
    return MPI_SUCCESS;
}

int File_get_info(decltype(&PMPI_File_get_info) real, FileRecord *record, MPI_File fh,
                  MPI_Info *info_used)
{
    int rc = real(fh, info_used);
    if (rc != MPI_SUCCESS || record == nullptr)
        return rc;
    const mpiio::AtomicFile *atomic = record->atomic.get();
    const char *lock = atomic == nullptr         ? nullptr
                       : atomic->lock != nullptr ? piox_lock_kind_name(atomic->lock)
                       : atomic->options.lock == PIOX_LOCK_RANGE ? "range"
                                                                 : "mutex";
    const std::pair<const char *, const char *> hints[] = {
        {"piox_sfp", record->sfp != nullptr ? "on" : "off"},
        {"piox_sfp_transport",
         record->sfp != nullptr ? piox_sfp_transport_name(record->sfp->pointer) : nullptr},
        {"piox_atomic", atomic != nullptr ? "on" : "off"},
        {"piox_atomic_lock", lock},
        {"piox_lockless", record->lockless ? "yes" : "no"}};
    for (const auto &[key, value] : hints)
        if (value != nullptr && rc == MPI_SUCCESS)
            rc = PMPI_Info_set(*info_used, key, value);
    return rc;
}

int File_set_view(decltype(&PMPI_File_set_view) real, FileRecord *record, MPI_File fh,
                  MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info)
{
    if (record == nullptr)
        return real(fh, disp, etype, filetype, datarep, info);
    record->count(Routine::File_set_view);
    int rc = record->sfp != nullptr
                 ? mpiio::File_set_view(*record->sfp, disp, etype, filetype, datarep, info)
                 : real(fh, disp, etype, filetype, datarep, info);
    if (record->atomic != nullptr)
        mpiio::view_changed(*record->atomic);
    return rc;
}

int File_close(decltype(&PMPI_File_close) real, MPI_File *fh)
{
    std::shared_ptr<FileRecord> record = fh != nullptr ? file_registry().remove(*fh) : nullptr;
    if (record != nullptr) {
        if (job_config().stats)
            print_file_stats(*record);
        release_parts(*record);
    }
    return real(fh);
}

int Finalize(decltype(&PMPI_Finalize) real)
{
    // Files still open at MPI_Finalize are the program's error. Their windows cannot
    // be freed collectively here (processes may have different files open), so only
    // our memory is released; MPI_Finalize reclaims the MPI objects.
    for (auto &record : file_registry().remove_all()) {
        piox_debug("a file is still open at MPI_Finalize");
        if (job_config().stats)
            print_file_stats(*record);
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
