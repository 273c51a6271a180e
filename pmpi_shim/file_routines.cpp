// The routines that concern every part of a file: see file_routines.h.
#include "file_routines.h"

#include "own_transfer.h"
#include "piox_log.h"
#include "config.h"
#include "errors.h"
#include "registry.h"
#include "sequential.h"
#include "view_agreement.h"

#include <cstring>
#include <string>
#include <utility>

namespace piox::shim::file_routines {
namespace {

std::string where(const char *routine, const FileRecord &record)
{
    return std::string(routine) + " on '" + record.filename() + "': ";
}

// A copy of info without its piox_* hints (for the library). *out is MPI_INFO_NULL
// when info is.
int without_piox_hints(MPI_Info info, MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int rc = PMPI_Info_dup(info, out), keys = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_get_nkeys(info, &keys);
    for (int i = 0; rc == MPI_SUCCESS && i < keys; i++) {
        char key[MPI_MAX_INFO_KEY + 1] = {};
        rc = PMPI_Info_get_nthkey(info, i, key);
        if (rc == MPI_SUCCESS && std::strncmp(key, "piox_", 5) == 0)
            rc = PMPI_Info_delete(*out, key);
    }
    return rc;
}

// The first knob whose value differs between the two settings, or null.
const char *changed_knob(const FileConfig &before, const FileConfig &after)
{
    const auto old_values = knob_values(before), new_values = knob_values(after);
    for (size_t i = 0; i < old_values.size(); i++)
        if (old_values[i].second != new_values[i].second)
            return old_values[i].first;
    return nullptr;
}

}  // namespace

int File_set_view(decltype(&PMPI_File_set_view) next, FileRecord *record, MPI_File fh,
                  MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info)
{
    if (record == nullptr)
        return next(fh, disp, etype, filetype, datarep, info);
    record->count(Routine::File_set_view);
    mpiio::OpenFile &file = record->file;
    if (file.sequential() && file.sfp != nullptr) {
        int rc = mpiio::resolve_sequential_view(file, &disp, etype, filetype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int rc = next(fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS) {
        mpiio::view_was_set(file, disp, etype, filetype, datarep);
        if (file.remap != nullptr)
            piox_debug("'%s': locality remapping %s", record->filename(),
                       file.default_view ? "on again: the default view is back"
                                         : "off: a view other than the default one is set");
    }
    // MPI_File_set_view resets the shared pointer to zero (MPI-3.1 13.3). Every
    // process takes part, even one whose set_view failed, so that none is left waiting.
    const int reset = file.sfp != nullptr ? mpiio::reset_shared_pointer(*file.sfp) : MPI_SUCCESS;
    const int agreed = mpiio::check_view_agrees(file, etype, datarep, rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS)
        return rc;  // the library already invoked the error handler
    return mpiio::raise_code(fh, reset != MPI_SUCCESS ? reset : agreed);
}

int File_get_info(decltype(&PMPI_File_get_info) next, FileRecord *record, MPI_File fh,
                  MPI_Info *info_used)
{
    int rc = next(fh, info_used);
    if (rc != MPI_SUCCESS || record == nullptr)
        return rc;
    const mpiio::OpenFile &file = record->file;
    const mpiio::AtomicFile *atomic = file.atomic.get();
    const char *lock = atomic == nullptr         ? nullptr
                       : atomic->lock != nullptr ? piox_lock_kind_name(atomic->lock)
                       : atomic->options.lock == PIOX_LOCK_RANGE ? "range"
                                                                 : "mutex";
    const bool sfp = file.sfp != nullptr;
    const std::pair<const char *, const char *> hints[] = {
        {"piox_sfp", sfp ? "on" : "off"},
        {"piox_sfp_transport", sfp ? piox_sfp_transport_name(file.sfp->pointer) : nullptr},
        {"piox_ordered_io",
         !sfp ? nullptr : file.sfp->options.collective_ordered_io ? "collective" : "independent"},
        {"piox_atomic", atomic != nullptr ? "on" : "off"},
        {"piox_atomic_lock", lock},
        {"piox_lockless", file.lockless ? "yes" : "no"},
        {"piox_locality", file.remap != nullptr       ? "remap"
                          : file.aggregate != nullptr ? "aggregate"
                                                      : "off"}};
    for (const auto &[key, value] : hints)
        if (value != nullptr && rc == MPI_SUCCESS)
            rc = PMPI_Info_set(*info_used, key, value);
    return rc;
}

int File_set_info(decltype(&PMPI_File_set_info) next, FileRecord *record, MPI_File fh,
                  MPI_Info info)
{
    if (record == nullptr)
        return next(fh, info);
    const char *routine = "MPI_File_set_info";
    FileConfig wanted = record->config;
    std::string message;
    int rc = config_after_open(info, &wanted, &message);
    if (rc != MPI_SUCCESS)
        return mpiio::raise_error(fh, rc, where(routine, *record) + message);
    const bool ordered_io = wanted.sfp_options.collective_ordered_io;
    wanted.sfp_options.collective_ordered_io = record->config.sfp_options.collective_ordered_io;
    if (const char *knob = changed_knob(record->config, wanted))
        return mpiio::raise_error(fh, MPI_ERR_INFO_VALUE,
                                  where(routine, *record) + "hint " + knob +
                                      " cannot change once the file is open");
    mpiio::SfpFile *sfp = record->file.sfp.get();
    if (sfp != nullptr && ordered_io != sfp->options.collective_ordered_io) {
        // Ordered routines are collective: every process must move the data alike.
        int mine[2] = {ordered_io, -ordered_io}, all[2] = {0, 0};
        rc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, record->file.comm);
        if (rc != MPI_SUCCESS)
            return mpiio::raise_code(fh, rc);
        if (all[0] != -all[1])
            return mpiio::raise_error(fh, MPI_ERR_NOT_SAME,
                                      where(routine, *record) +
                                          "hint piox_ordered_io differs between processes");
        sfp->options.collective_ordered_io = ordered_io;
        record->config.sfp_options.collective_ordered_io = ordered_io;
    }
    MPI_Info library_info = MPI_INFO_NULL;
    rc = without_piox_hints(info, &library_info);
    if (rc != MPI_SUCCESS)
        return mpiio::raise_code(fh, rc);
    rc = next(fh, library_info);
    if (library_info != MPI_INFO_NULL)
        PMPI_Info_free(&library_info);
    return rc;
}

int File_get_amode(decltype(&PMPI_File_get_amode) next, FileRecord *record, MPI_File fh,
                   int *amode)
{
    int rc = next(fh, amode);
    if (rc == MPI_SUCCESS && record != nullptr) {
        record->count(Routine::File_get_amode);
        *amode = record->file.amode;
    }
    return rc;
}

int File_set_size(decltype(&PMPI_File_set_size) next, FileRecord *record, MPI_File fh,
                  MPI_Offset size)
{
    if (record != nullptr && record->file.sequential())
        return mpiio::refuse_on_sequential(record->file, "MPI_File_set_size");
    return next(fh, size);
}

int File_preallocate(decltype(&PMPI_File_preallocate) next, FileRecord *record, MPI_File fh,
                     MPI_Offset size)
{
    if (record != nullptr && record->file.sequential())
        return mpiio::refuse_on_sequential(record->file, "MPI_File_preallocate");
    return next(fh, size);
}

int File_sync(decltype(&PMPI_File_sync) next, FileRecord *record, MPI_File fh)
{
    int rc = MPI_SUCCESS;
    if (record != nullptr && record->file.atomic != nullptr)
        rc = mpiio::sync_own_descriptor(*record->file.atomic);
    const int library = next(fh);
    return rc != MPI_SUCCESS ? rc : library;
}

}  // namespace piox::shim::file_routines
