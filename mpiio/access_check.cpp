// Argument checks for pointer-moving accesses: see access_check.h.
#include "access_check.h"

#include "errors.h"

#include <limits>
#include <string>

namespace piox::mpiio {

int check_access(const OpenFile &file, const char *routine, Direction direction,
                 MPI_Count count, MPI_Datatype datatype, MPI_Offset *etypes)
{
    *etypes = 0;
    // The message is built only when there is an error to report: this runs on every call.
    auto where = [&]() { return std::string(routine) + " on '" + file.filename + "': "; };
    if (count < 0)
        return error_code(MPI_ERR_COUNT, where() + "negative count " + std::to_string(count));
    if (direction == Direction::write && (file.amode & MPI_MODE_RDONLY))
        return error_code(MPI_ERR_READ_ONLY, where() + "file was opened MPI_MODE_RDONLY");
    if (direction == Direction::read && (file.amode & MPI_MODE_WRONLY))
        return error_code(MPI_ERR_ACCESS, where() + "file was opened MPI_MODE_WRONLY");
    if (datatype == MPI_DATATYPE_NULL)
        return error_code(MPI_ERR_TYPE, where() + "datatype is MPI_DATATYPE_NULL");
    MPI_Count size = 0;
    if (PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size == MPI_UNDEFINED)
        return error_code(MPI_ERR_TYPE, where() + "invalid datatype");
    if (size > 0 && count > std::numeric_limits<MPI_Count>::max() / size)
        return error_code(MPI_ERR_COUNT, where() + "count " + std::to_string(count) +
                                             " is past the largest file");
    const MPI_Count bytes = size * count;
    if (bytes % file.etype_size != 0)
        return error_code(MPI_ERR_TYPE, where() + "the access is " + std::to_string(bytes) +
                                            " bytes, not a whole number of " +
                                            std::to_string(file.etype_size) + "-byte etypes");
    *etypes = static_cast<MPI_Offset>(bytes / file.etype_size);
    return MPI_SUCCESS;
}

}  // namespace piox::mpiio
