// Argument checks for pointer-moving accesses: see access_check.h.
#include "access_check.h"

#include "errors.h"

#include <limits>
#include <string>

namespace piox::mpiio {

int access_bytes(MPI_Count count, MPI_Datatype datatype, MPI_Offset *bytes)
{
    *bytes = 0;
    MPI_Count size = 0;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS ||
        size == MPI_UNDEFINED || size < 0)
        return MPI_ERR_TYPE;
    if (size > 0 && count > std::numeric_limits<MPI_Offset>::max() / size)
        return MPI_ERR_COUNT;
    *bytes = static_cast<MPI_Offset>(size * count);
    return MPI_SUCCESS;
}

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
    MPI_Offset bytes = 0;
    const int rc = access_bytes(count, datatype, &bytes);
    if (rc == MPI_ERR_TYPE)
        return error_code(MPI_ERR_TYPE, where() + "invalid datatype");
    if (rc != MPI_SUCCESS)
        return error_code(MPI_ERR_COUNT, where() + "count " + std::to_string(count) +
                                             " is past the largest file");
    if (bytes % file.etype_size != 0)
        return error_code(MPI_ERR_TYPE, where() + "the access is " + std::to_string(bytes) +
                                            " bytes, not a whole number of " +
                                            std::to_string(file.etype_size) + "-byte etypes");
    *etypes = static_cast<MPI_Offset>(bytes / file.etype_size);
    return MPI_SUCCESS;
}

}  // namespace piox::mpiio
