// See sequential.h.
#include "sequential.h"

#include "errors.h"

#include <string>

namespace piox::mpiio {
namespace {

// A type whose data fill its extent from its lower bound 0, without a gap.
bool without_holes(MPI_Datatype type)
{
    MPI_Count size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    return PMPI_Type_size_x(type, &size) == MPI_SUCCESS &&
           PMPI_Type_get_extent_x(type, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent) == MPI_SUCCESS &&
           lb == 0 && true_lb == 0 && extent == size && true_extent == size;
}

std::string where(const OpenFile &file, const char *routine)
{
    return std::string(routine) + " on '" + file.filename + "': ";
}

}  // namespace

int refuse_on_sequential(OpenFile &file, const char *routine)
{
    return raise_error(file.fh, MPI_ERR_UNSUPPORTED_OPERATION,
                       where(file, routine) +
                           "the file was opened MPI_MODE_SEQUENTIAL, where only shared-pointer "
                           "reads and writes may access it");
}

int resolve_sequential_view(OpenFile &file, MPI_Offset *disp, MPI_Datatype etype,
                            MPI_Datatype filetype)
{
    const char *routine = "MPI_File_set_view";
    if (*disp != MPI_DISPLACEMENT_CURRENT)
        return raise_error(file.fh, MPI_ERR_ARG,
                           where(file, routine) +
                               "the displacement of a file opened MPI_MODE_SEQUENTIAL must be "
                               "MPI_DISPLACEMENT_CURRENT");
    for (MPI_Datatype type : {etype, filetype})
        if (type == MPI_DATATYPE_NULL || !without_holes(type))
            return raise_error(file.fh, MPI_ERR_TYPE,
                               where(file, routine) +
                                   "the etype and filetype of a file opened "
                                   "MPI_MODE_SEQUENTIAL must be types without holes");
    // Every process's earlier accesses have claimed their part of the file once all
    // have entered the call.
    int rc = PMPI_Barrier(file.comm);
    MPI_Offset position = 0;
    if (rc == MPI_SUCCESS)
        rc = piox_sfp_read(file.sfp->pointer, &position);
    if (rc == MPI_SUCCESS)
        rc = PMPI_File_get_byte_offset(file.fh, position, disp);
    return raise_code(file.fh, rc);
}

}  // namespace piox::mpiio
