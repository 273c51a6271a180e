// The parts of data_access.h that are not templates: the ordered routines' claim,
// the split collectives' end calls, a read's advance, and atomic mode's switch.
#include "data_access.h"

#include <string>

namespace piox::mpiio {

MPI_Offset etypes_read(const OpenFile &file, const MPI_Status &status)
{
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(&status, MPI_BYTE, &bytes);
    return bytes > 0 ? static_cast<MPI_Offset>(bytes / file.etype_size) : 0;
}

MPI_Offset after_nonblocking_read(const OpenFile &file, MPI_Offset offset, MPI_Offset etypes,
                                  MPI_Request request)
{
    int complete = 0;
    MPI_Status status{};
    if (request == MPI_REQUEST_NULL || PMPI_Request_get_status(request, &complete, &status) !=
                                           MPI_SUCCESS || !complete)
        return offset + etypes;
    return after_read(file, offset, etypes, status);
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
