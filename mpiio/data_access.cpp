// The parts of data_access.h that are not templates: the ordered routines' claim,
// the split collectives' end calls, a read's advance, and atomic mode's switch.
#include "data_access.h"

#include <algorithm>
#include <string>

namespace piox::mpiio {

namespace {

constexpr MPI_Offset kChunkBytes = MPI_Offset(1) << 20;  // mapped at once

// The bytes of a read of `claimed` bytes at `offset` (etypes of the view) that the
// file holds. The claim stands when the access ends within the file, or when piox
// cannot map it exactly (a chunk at a time) or measure the file.
MPI_Offset bytes_the_file_holds(OpenFile &file, MPI_Offset offset, MPI_Offset claimed)
{
    if (claimed <= 0 || !file.atomic)
        return claimed;
    AtomicFile &atomic = *file.atomic;
    const AccessMap *map = nullptr;
    MPI_Offset size = 0;
    if (current_view(atomic) != MPI_SUCCESS || !atomic.native ||
        map_access(atomic, offset, claimed, &map) != MPI_SUCCESS || map->pieces.empty() ||
        PMPI_File_get_size(file.fh, &size) != MPI_SUCCESS)
        return claimed;
    // A map that is not exact covers more than the access, but ends where it ends.
    if (const piox_extent &last = map->pieces.back(); last.offset + last.length <= size)
        return claimed;
    MPI_Offset etypes_per_chunk = std::max<MPI_Offset>(1, kChunkBytes / file.etype_size);
    for (MPI_Offset held = 0; held < claimed;) {
        const MPI_Offset length = std::min(etypes_per_chunk * file.etype_size, claimed - held);
        if (map_access(atomic, offset + held / file.etype_size, length, &map) != MPI_SUCCESS)
            return claimed;
        if (!map->exact) {  // too many pieces for one exact map
            if (etypes_per_chunk == 1)
                return claimed;
            etypes_per_chunk /= 2;
            continue;
        }
        const MPI_Offset got = stream_bytes_before(*map, size);
        held += got;
        if (got < length)
            return held;
    }
    return claimed;
}

}  // namespace

MPI_Offset etypes_read(OpenFile &file, MPI_Offset offset, MPI_Status &status)
{
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(&status, MPI_BYTE, &bytes);
    MPI_Offset held = bytes_the_file_holds(file, offset, bytes);
    if (held != bytes) {
        held -= held % file.etype_size;  // a read reads whole etypes
        PMPI_Status_set_elements_x(&status, MPI_BYTE, held);
        // The library's pointer moved by its own count: piox seeks it before the next
        // access it passes on.
        file.library_pointer_in_step = false;
    }
    return held > 0 ? held / file.etype_size : 0;
}

MPI_Offset after_nonblocking_read(OpenFile &file, MPI_Offset offset, MPI_Offset etypes,
                                  MPI_Request request)
{
    int complete = 0;
    MPI_Status status{};
    if (request == MPI_REQUEST_NULL)
        return offset + etypes;
    if (PMPI_Request_get_status(request, &complete, &status) == MPI_SUCCESS && complete)
        return after_read(file, offset, etypes, status);
    // Still running: it will read what the file holds now (the library's pointer
    // moves by what it reads, which piox cannot know yet).
    const MPI_Offset held = bytes_the_file_holds(file, offset, etypes * file.etype_size);
    if (held != etypes * file.etype_size)
        file.library_pointer_in_step = false;
    return offset + held / file.etype_size;
}

int claim_ordered(OpenFile &file, const char *routine, Direction direction, MPI_Count count,
                  MPI_Datatype datatype, MPI_Offset *offset, int *local_error)
{
    MPI_Offset etypes = 0;
    *local_error = check_access(file, routine, direction, count, datatype, &etypes);
    if (*local_error == MPI_SUCCESS && file.split.kind != SplitKind::none)
        *local_error = error_code(MPI_ERR_IO, std::string(routine) + " on '" + file.filename +
                                                  "': a split collective is outstanding");
    return piox_sfp_ordered(file.sfp->pointer, *local_error == MPI_SUCCESS ? etypes : 0, offset);
}

int File_read_at_all_end(OpenFile &file, void *buf, MPI_Status *status)
{
    return end_split(file, "MPI_File_read_at_all_end", SplitKind::read_at_all, buf, status);
}

int File_write_at_all_end(OpenFile &file, const void *buf, MPI_Status *status)
{
    return end_split(file, "MPI_File_write_at_all_end", SplitKind::write_at_all, buf, status);
}

int File_read_all_end(OpenFile &file, void *buf, MPI_Status *status)
{
    const SplitCollective split = file.split;  // end_split ends it
    MPI_Status own_status{};
    if (status == MPI_STATUS_IGNORE)
        status = &own_status;
    const int rc = end_split(file, "MPI_File_read_all_end", SplitKind::read_all, buf, status);
    // The pointer moves back to what the read read, unless it moved since the begin call.
    if (rc == MPI_SUCCESS && split.kind == SplitKind::read_all &&
        file.position == split.pointer_after)
        file.position = after_read(file, split.pointer_before,
                                   split.pointer_after - split.pointer_before, *status);
    return rc;
}

int File_write_all_end(OpenFile &file, const void *buf, MPI_Status *status)
{
    return end_split(file, "MPI_File_write_all_end", SplitKind::write_all, buf, status);
}

int File_read_ordered_end(OpenFile &file, void *buf, MPI_Status *status)
{
    return end_split(file, "MPI_File_read_ordered_end", SplitKind::read_ordered, buf, status);
}

int File_write_ordered_end(OpenFile &file, const void *buf, MPI_Status *status)
{
    return end_split(file, "MPI_File_write_ordered_end", SplitKind::write_ordered, buf, status);
}

int File_set_atomicity(OpenFile &file, int flag) { return set_atomicity(*file.atomic, flag); }

int File_get_atomicity(OpenFile &file, int *flag) { return get_atomicity(*file.atomic, flag); }

}  // namespace piox::mpiio
