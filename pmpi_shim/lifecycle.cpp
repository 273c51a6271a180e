// Open, close and finalize: see lifecycle.h.
#include "lifecycle.h"

#include "config.h"
#include "errors.h"
#include "locality_open.h"
#include "piox_comm.h"
#include "piox_log.h"
#include "piox_node.h"
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
    mpiio::OpenFile &file = record.file;
    const char *name = record.filename();
    if (file.split.kind != mpiio::SplitKind::none)
        piox_warn("'%s' closed with a split collective outstanding", name);  // erroneous
    if (file.sfp != nullptr && mpiio::detach(*file.sfp) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing the shared file pointer failed", name);
    if (file.atomic != nullptr && mpiio::detach(*file.atomic) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing the atomic-mode locks failed", name);
    detach_locality(file);
    file.sfp.reset();
    file.atomic.reset();
    if (file.comm != MPI_COMM_NULL && PMPI_Comm_free(&file.comm) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing piox's communicator failed", name);
}

// Collective: where both pointers start. With MPI_MODE_APPEND, at the end of the
// file: the view is still the default byte view, so the size in bytes is the
// position in etypes. Fails on every process when it fails on one.
int initial_position(MPI_Comm comm, MPI_File fh, int amode, MPI_Offset *position)
{
    *position = 0;
    int rc = (amode & MPI_MODE_APPEND) ? PMPI_File_get_size(fh, position) : MPI_SUCCESS;
    int ok = rc == MPI_SUCCESS, all_ok = 0;
    int rc2 = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    return rc != MPI_SUCCESS ? rc : rc2 != MPI_SUCCESS ? rc2 : all_ok ? MPI_SUCCESS : MPI_ERR_OTHER;
}

// Collective, right after the library opened the file: piox's state of it. On
// failure, what failed, and in *cause the error code of why.
const char *attach_parts(FileRecord &record, MPI_Comm comm, const FileConfig &config, int *cause)
{
    mpiio::OpenFile &file = record.file;
    const char *name = file.filename.c_str();
    if ((*cause = initial_position(comm, file.fh, file.amode, &file.position)) != MPI_SUCCESS)
        return "cannot find the end of the file for MPI_MODE_APPEND";
    // The library's pointer starts at 0 (piox keeps MPI_MODE_APPEND from it).
    file.library_pointer_in_step = file.position == 0;
    if (!config.sfp && !config.atomic)
        return nullptr;
    // Asked of the caller's communicator before it is duplicated: the answer is kept
    // there and copied to the duplicates, so the shared pointer's transport, atomic
    // mode's lock and every later file opened on it (or on a duplicate, as HDF5
    // makes for each file) skip the question's five collectives.
    int one_node = 0;
    if ((*cause = piox_comm_on_one_node(comm, &one_node)) != MPI_SUCCESS ||
        (*cause = piox_comm_dup_private(comm, &file.comm)) != MPI_SUCCESS)
        return "cannot make piox's communicator for the file";
    if (config.sfp && (*cause = mpiio::attach(file.comm, name, file.position, config.sfp_options,
                                              &file.sfp)) != MPI_SUCCESS)
        return "cannot create the shared file pointer";
    if (config.atomic && (*cause = mpiio::attach(file.fh, file.comm, name, file.amode, file.lockless,
                                                 config.atomic_options, &file.atomic)) != MPI_SUCCESS)
        return "cannot set up atomic mode";
    return nullptr;
}

}  // namespace

int File_open(decltype(&PMPI_File_open) next, MPI_Comm comm, const char *filename, int amode,
              MPI_Info info, MPI_File *fh)
{
    // Leave every check of the arguments to the library: an invalid communicator or
    // name fails there, with the library's own error.
    int comm_size = 0;
    if (comm == MPI_COMM_NULL || filename == nullptr || fh == nullptr ||
        PMPI_Comm_size(comm, &comm_size) != MPI_SUCCESS)
        return next(comm, filename, amode, info, fh);

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
    if (!config.sfp && !config.atomic && !lockless && config.locality == LocalityMode::off) {
        piox_debug("'%s': left to the MPI library", filename);
        return next(comm, filename, amode, info, fh);
    }

    MPI_Info library_info = MPI_INFO_NULL;
    if (lockless && (rc = mpiio::info_for_lockless(info, &library_info)) != MPI_SUCCESS)
        return mpiio::raise_code(MPI_FILE_NULL, rc);
    rc = next(comm, filename, config.sfp ? mpiio::amode_for_library(amode) : amode,
              lockless ? library_info : info, fh);
    if (library_info != MPI_INFO_NULL)
        PMPI_Info_free(&library_info);
    if (rc != MPI_SUCCESS)
        return rc;

    auto record = std::make_shared<FileRecord>();
    record->config = config;
    mpiio::OpenFile &file = record->file;
    file.fh = *fh;
    file.filename = filename;
    file.amode = amode;
    file.lockless = lockless;
    int cause = MPI_SUCCESS;
    if (const char *failed = attach_parts(*record, comm, config, &cause)) {
        release_parts(*record);
        PMPI_File_close(fh);
        // The cause's class where it has one (MPI_ERR_OTHER when communicators run out).
        int error_class = MPI_ERR_OTHER;
        if (cause != MPI_SUCCESS && PMPI_Error_class(cause, &error_class) != MPI_SUCCESS)
            error_class = MPI_ERR_OTHER;
        return mpiio::raise_error(MPI_FILE_NULL, error_class,
                                  std::string("MPI_File_open of '") + filename + "': " + failed, cause);
    }
    attach_locality(comm, amode, info, config, file);
    file_registry().add(*fh, std::move(record));
    return MPI_SUCCESS;
}

int File_close(decltype(&PMPI_File_close) next, MPI_File *fh)
{
    std::shared_ptr<FileRecord> record = fh != nullptr ? file_registry().remove(*fh) : nullptr;
    if (record != nullptr) {
        if (job_config().stats)
            print_file_stats(*record);
        release_parts(*record);
    }
    return next(fh);
}

int Finalize(decltype(&PMPI_Finalize) next)
{
    // Files still open at MPI_Finalize are the program's error. Their windows cannot
    // be freed collectively here (processes may have different files open), so only
    // our memory is released; MPI_Finalize reclaims the MPI objects.
    for (auto &record : file_registry().remove_all()) {
        piox_debug("a file is still open at MPI_Finalize");
        if (job_config().stats)
            print_file_stats(*record);
    }
    return next();
}

}  // namespace piox::shim::lifecycle

namespace piox::shim {

int closed_handle_error(Routine routine)
{
    return mpiio::raise_error(MPI_FILE_NULL, MPI_ERR_FILE,
                              std::string(name_of(routine)) +
                                  ": the file handle belongs to a file that was closed");
}

}  // namespace piox::shim
