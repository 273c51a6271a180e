// Positioning the shared pointer: MPI_File_seek_shared (collective) and
// MPI_File_get_position_shared. Positions are in etypes of the current view.
#include "errors.h"
#include "sfp_file.h"

#include <string>

namespace piox::mpiio {
namespace {

// The position, in etypes of the current view, of the first etype that starts at or
// after the end of the file: the smallest k with byte_offset(k) >= file size. Found by
// bisection on MPI_File_get_byte_offset, which is monotonic in k, so it holds for any
// view the library supports (holes, displacements, resized types).
int end_of_file_position(const SfpFile &file, MPI_Offset *position)
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

}  // namespace

int File_seek_shared(SfpFile &file, MPI_Offset offset, int whence)
{
    const std::string where = "MPI_File_seek_shared on '" + file.filename + "': ";
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return raise_error(file.fh, MPI_ERR_ARG, where + "invalid whence " + std::to_string(whence));

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
    int rc = piox_sfp_update(file.pointer, op, operand, nullptr);
    if (rc == MPI_ERR_ARG)
        return raise_error(file.fh, MPI_ERR_ARG,
                           where + "offset and whence must be the same on every process, "
                                   "and the new position must not be negative");
    return raise_code(file.fh, rc);
}

int File_get_position_shared(SfpFile &file, MPI_Offset *offset)
{
    if (offset == nullptr)
        return raise_error(file.fh, MPI_ERR_ARG,
                           "MPI_File_get_position_shared on '" + file.filename +
                               "': offset is NULL");
    return raise_code(file.fh, piox_sfp_read(file.pointer, offset));
}

}  // namespace piox::mpiio
