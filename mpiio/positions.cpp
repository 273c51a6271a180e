// Positioning both file pointers: MPI_File_seek and MPI_File_get_position (piox's
// individual pointer), MPI_File_seek_shared (collective) and
// MPI_File_get_position_shared. Positions are in etypes of the current view.
#include "data_access.h"

#include <limits>
#include <string>

namespace piox::mpiio {
namespace {

// The position, in etypes of the current view, of the first etype that starts at or
// after the end of the file: the smallest k with byte_offset(k) >= file size. Found by
// bisection on MPI_File_get_byte_offset, which is monotonic in k, so it holds for any
// view the library supports (holes, displacements, resized types).
int end_of_file_position(const OpenFile &file, MPI_Offset *position)
{
    MPI_Offset size = 0;
    int rc = PMPI_File_get_size(file.fh, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    // Every etype occupies at least etype_size bytes, so k = size / etype_size + 1
    // already lies past the end.
    MPI_Offset low = 0, high = size / file.etype_size + 1;
    while (low < high) {
        MPI_Offset middle = low + (high - low) / 2, byte = 0;
        rc = PMPI_File_get_byte_offset(file.fh, middle, &byte);
        if (rc != MPI_SUCCESS)
            return rc;
        if (byte >= size)
            high = middle;
        else
            low = middle + 1;
    }
    *position = low;
    return MPI_SUCCESS;
}

std::string where(const OpenFile &file, const char *routine)
{
    return std::string(routine) + " on '" + file.filename + "': ";
}

bool valid_whence(int whence)
{
    return whence == MPI_SEEK_SET || whence == MPI_SEEK_CUR || whence == MPI_SEEK_END;
}

int invalid_whence(OpenFile &file, const char *routine, int whence)
{
    return raise_error(file.fh, MPI_ERR_ARG,
                       where(file, routine) + "invalid whence " + std::to_string(whence));
}

}  // namespace

int File_seek(OpenFile &file, MPI_Offset offset, int whence)
{
    const char *routine = "MPI_File_seek";
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if (!valid_whence(whence))
        return invalid_whence(file, routine, whence);
    MPI_Offset base = whence == MPI_SEEK_CUR ? file.position : 0;
    if (whence == MPI_SEEK_END) {
        int rc = end_of_file_position(file, &base);
        if (rc != MPI_SUCCESS)
            return raise_code(file.fh, rc);
    }
    if ((offset < 0 && base < -offset) ||
        (offset > 0 && base > std::numeric_limits<MPI_Offset>::max() - offset))
        return raise_error(file.fh, MPI_ERR_ARG,
                           where(file, routine) + "the new position would be " +
                               (offset < 0 ? "negative" : "past the largest offset"));
    file.position = base + offset;
    file.library_pointer_in_step = false;
    return MPI_SUCCESS;
}

int File_get_position(OpenFile &file, MPI_Offset *offset)
{
    const char *routine = "MPI_File_get_position";
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if (offset == nullptr)
        return raise_error(file.fh, MPI_ERR_ARG, where(file, routine) + "offset is NULL");
    *offset = file.position;
    return MPI_SUCCESS;
}

int File_seek_shared(OpenFile &file, MPI_Offset offset, int whence)
{
    const char *routine = "MPI_File_seek_shared";
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if (!valid_whence(whence))
        return invalid_whence(file, routine, whence);

    piox_sfp_op op = whence == MPI_SEEK_CUR ? PIOX_SFP_ADD : PIOX_SFP_SET;
    MPI_Offset operand = offset;
    if (whence == MPI_SEEK_END) {
        // Measure the end once every earlier access has completed: wait for all
        // processes, let rank 0 measure, and share its answer.
        int rank = 0, rc = PMPI_Barrier(file.comm);
        PMPI_Comm_rank(file.comm, &rank);
        int64_t end[2] = {0, MPI_SUCCESS};
        if (rc == MPI_SUCCESS && rank == 0) {
            MPI_Offset position = 0;
            end[1] = end_of_file_position(file, &position);
            end[0] = position;
        }
        if (rc == MPI_SUCCESS)
            rc = PMPI_Bcast(end, 2, MPI_INT64_T, 0, file.comm);
        if (rc == MPI_SUCCESS)
            rc = static_cast<int>(end[1]);
        if (rc != MPI_SUCCESS)
            return raise_code(file.fh, rc);
        operand = end[0] + offset;
    }
    int rc = piox_sfp_update(file.sfp->pointer, op, operand, nullptr);
    if (rc == MPI_ERR_ARG)
        return raise_error(file.fh, MPI_ERR_ARG,
                           where(file, routine) +
                               "offset and whence must be the same on every process, "
                               "and the new position must not be negative");
    return raise_code(file.fh, rc);
}

int File_get_position_shared(OpenFile &file, MPI_Offset *offset)
{
    const char *routine = "MPI_File_get_position_shared";
    if (file.sequential())
        return refuse_on_sequential(file, routine);
    if (offset == nullptr)
        return raise_error(file.fh, MPI_ERR_ARG, where(file, routine) + "offset is NULL");
    return raise_code(file.fh, piox_sfp_read(file.sfp->pointer, offset));
}

}  // namespace piox::mpiio
