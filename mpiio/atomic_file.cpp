// Atomic mode's per-file state and the locking of one access: see atomic_file.h.
#include "atomic_file.h"

#include "access_check.h"
#include "errors.h"
#include "lockless.h"
#include "own_transfer.h"
#include "piox_log.h"

#include <algorithm>

namespace piox::mpiio {
namespace {

// Past this many extents an access's lock set is coarsened (adjacent extents
// merged across their gaps): more bytes locked, never fewer.
constexpr int kMaxLockedExtents = 1024;
// Accesses up to this size are mapped exactly, in up to kMaxExactPieces pieces
// (piox's sieving needs them); larger ones only as coarsely as their locks need.
constexpr MPI_Offset kExactMapBytes = MPI_Offset(4) << 20;
constexpr MPI_Offset kMaxExactPieces = MPI_Offset(1) << 16;

void free_unless_named(MPI_Datatype *type)
{
    int integers = 0, addresses = 0, datatypes = 0, combiner = MPI_COMBINER_NAMED;
    PMPI_Type_get_envelope(*type, &integers, &addresses, &datatypes, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(type);
}

int flatten_view(AtomicFile &file)
{
    MPI_Offset disp = 0;
    MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
    char datarep[MPI_MAX_DATAREP_STRING + 1] = {};
    int rc = PMPI_File_get_view(file.fh, &disp, &etype, &filetype, datarep);
    if (rc != MPI_SUCCESS)
        return rc;
    file.native = std::string(datarep) == "native";
    rc = piox_view_create(disp, etype, filetype, &file.view);
    free_unless_named(&etype);
    free_unless_named(&filetype);
    if (rc != MPI_SUCCESS)
        return error_code(rc, "atomic mode on '" + file.filename +
                                  "': piox cannot flatten the file view to lock its bytes");
    return MPI_SUCCESS;
}

int create_lock(AtomicFile &file)
{
    int rc = piox_lock_create(file.comm, file.options.lock, &file.lock);
    if (rc == MPI_SUCCESS)
        piox_debug("'%s': atomic mode with %s locks", file.filename.c_str(),
                   piox_lock_kind_name(file.lock));
    return rc;
}

// ROMIO's write data sieving reads, patches and writes back a whole extent,
// bytes of other processes included, protected only by its own fcntl lock. Under
// piox's exact range locks that would write stale copies over bytes another process
// is writing at the same time (a contiguous write takes no fcntl lock), so atomic
// mode turns it off, and restores the file's setting when it ends. Another library's
// hints are left alone (lockless.h), so that MPI_File_get_info reports no override
// that did not happen. Collective, as MPI_File_set_info is.
int set_write_sieving(AtomicFile &file, bool atomic)
{
    if (!library_is_romio())
        return MPI_SUCCESS;
    if (atomic) {
        MPI_Info current = MPI_INFO_NULL;
        char value[MPI_MAX_INFO_VAL + 1] = {};
        int found = 0;
        if (PMPI_File_get_info(file.fh, &current) == MPI_SUCCESS) {
            PMPI_Info_get(current, "romio_ds_write", MPI_MAX_INFO_VAL, value, &found);
            PMPI_Info_free(&current);
        }
        file.saved_ds_write = found ? value : "";
    }
    if (file.saved_ds_write.empty())
        return MPI_SUCCESS;
    MPI_Info info = MPI_INFO_NULL;
    int rc = PMPI_Info_create(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Info_set(info, "romio_ds_write", atomic ? "disable" : file.saved_ds_write.c_str());
    if (rc == MPI_SUCCESS)
        rc = PMPI_File_set_info(file.fh, info);
    PMPI_Info_free(&info);
    return rc;
}

}  // namespace

int attach(MPI_File fh, MPI_Comm comm, const char *filename, int amode, bool lockless,
           const AtomicOptions &options, std::unique_ptr<AtomicFile> *out)
{
    auto file = std::make_unique<AtomicFile>();
    file->fh = fh;
    file->filename = filename;
    file->options = options;
    file->comm = comm;
    open_own_descriptor(*file, amode);
    file->lockless = lockless;
    int rc = MPI_SUCCESS;
    if (lockless && (rc = create_lock(*file)) != MPI_SUCCESS) {
        close_own_descriptor(*file);
        return rc;
    }
    *out = std::move(file);
    return MPI_SUCCESS;
}

int detach(AtomicFile &file)
{
    int rc = MPI_SUCCESS;
    if (file.view != nullptr)
        piox_view_free(&file.view);
    close_own_descriptor(file);
    if (file.lock != nullptr)
        rc = piox_lock_free(&file.lock);
    return rc;
}

void view_changed(AtomicFile &file)
{
    for (AccessMap &map : file.recent_maps)
        map.valid = false;
    if (file.view != nullptr)
        piox_view_free(&file.view);
}

int set_atomicity(AtomicFile &file, int flag)
{
    // Collective, and the flag must be the same everywhere (MPI-3.1 13.6.1): check,
    // so that processes never disagree on whether to lock.
    int mine[2] = {flag != 0, -(flag != 0)}, all[2] = {0, 0};
    int rc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, file.comm);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    if (all[0] != -all[1])
        return raise_error(file.fh, MPI_ERR_NOT_SAME,
                           "MPI_File_set_atomicity on '" + file.filename +
                               "': the flag differs between processes");
    if (flag && file.lock == nullptr) {
        rc = create_lock(file);
        if (rc != MPI_SUCCESS)
            return raise_error(file.fh, MPI_ERR_OTHER,
                               "MPI_File_set_atomicity on '" + file.filename +
                                   "': cannot create the byte-range lock");
    }
    if ((flag != 0) != file.atomic) {
        rc = set_write_sieving(file, flag != 0);
        if (rc != MPI_SUCCESS)
            return raise_code(file.fh, rc);
    }
    file.atomic = flag != 0;
    return MPI_SUCCESS;
}

int get_atomicity(const AtomicFile &file, int *flag)
{
    if (flag == nullptr)
        return raise_error(file.fh, MPI_ERR_ARG, "MPI_File_get_atomicity: flag is NULL");
    *flag = file.atomic;
    return MPI_SUCCESS;
}

int lock_access(AtomicFile &file, Direction direction, MPI_Offset offset, MPI_Count count,
                MPI_Datatype datatype)
{
    MPI_Offset bytes = 0;
    int rc = access_bytes(count, datatype, &bytes);
    if (rc == MPI_ERR_TYPE)
        return error_code(MPI_ERR_TYPE, "'" + file.filename + "': invalid datatype");
    if (rc != MPI_SUCCESS)
        return error_code(MPI_ERR_COUNT, "'" + file.filename + "': count " +
                                             std::to_string(count) +
                                             (count < 0 ? " is negative"
                                                        : " is past the largest file"));
    if (offset < 0)
        return error_code(MPI_ERR_ARG, "'" + file.filename + "': negative offset " +
                                           std::to_string(offset));
    const AccessMap *map = nullptr;
    rc = map_access(file, offset, bytes, &map);
    if (rc != MPI_SUCCESS)
        return rc;
    return piox_lock_acquire(file.lock,
                             direction == Direction::write ? PIOX_LOCK_WRITE : PIOX_LOCK_READ,
                             map->locks.data(), static_cast<int>(map->locks.size()));
}

int map_access(AtomicFile &file, MPI_Offset offset, MPI_Offset bytes, const AccessMap **out)
{
    for (const AccessMap &recent : file.recent_maps)
        if (recent.valid && recent.offset == offset && recent.bytes == bytes) {
            *out = &recent;
            return MPI_SUCCESS;
        }
    AccessMap &map = file.recent_maps[file.next_map];
    file.next_map = (file.next_map + 1) % file.recent_maps.size();
    *out = &map;
    int rc = current_view(file);
    if (rc != MPI_SUCCESS)
        return rc;
    map.valid = false;
    map.pieces.resize(static_cast<size_t>(
        bytes <= kExactMapBytes ? std::max<MPI_Offset>(1, std::min(bytes, kMaxExactPieces))
                                : kMaxLockedExtents));
    int n = 0;
    rc = piox_view_extents(file.view, offset, bytes, map.pieces.data(),
                           static_cast<int>(map.pieces.size()), &n);
    if (rc != MPI_SUCCESS)
        return error_code(rc, "'" + file.filename + "': the access does not fit in the file");
    map.pieces.resize(static_cast<size_t>(n));
    MPI_Offset covered = 0;
    map.piece_length = n > 0 ? map.pieces.front().length : 0;
    for (const piox_extent &piece : map.pieces) {
        covered += piece.length;
        if (piece.length != map.piece_length)
            map.piece_length = 0;
    }
    map.exact = covered == bytes;  // coarsening adds bytes
    map.locks = map.pieces;
    int kept = 0;
    piox_extents_coarsen(map.locks.data(), n, kMaxLockedExtents, &kept);
    map.locks.resize(static_cast<size_t>(kept));
    map.offset = offset;
    map.bytes = bytes;
    map.valid = true;
    return MPI_SUCCESS;
}

MPI_Offset stream_bytes_before(const AccessMap &map, MPI_Offset end)
{
    MPI_Offset bytes = 0;
    for (const piox_extent &piece : map.pieces) {
        const MPI_Offset length = std::clamp<MPI_Offset>(end - piece.offset, 0, piece.length);
        bytes += length;
        if (length < piece.length)
            break;
    }
    return bytes;
}

int current_view(AtomicFile &file)
{
    return file.view != nullptr ? MPI_SUCCESS : flatten_view(file);
}

int unlock_access(AtomicFile &file) { return piox_lock_release(file.lock); }

}  // namespace piox::mpiio
