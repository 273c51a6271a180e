// Shared-mode accesses: one fetch-and-add on the shared pointer claims the range,
// then the data moves with the explicit-offset routine at the claimed offset. The
// pointer is held for no longer than the atomic itself.
#include "access_check.h"
#include "errors.h"
#include "sfp_file.h"
#include "sfp_transfer.h"

namespace piox::mpiio {
namespace {

template <auto LibraryIo, auto LockedIo, typename Buffer, typename Completion>
int shared_access(SfpFile &file, const char *routine, Direction direction, Buffer buf, int count,
                  MPI_Datatype datatype, Completion completion)
{
    MPI_Offset etypes = 0;
    int rc = check_access(file, routine, direction, count, datatype, &etypes);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    MPI_Offset offset = 0;
    rc = piox_sfp_fetch_add(file.pointer, etypes, &offset);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    return transfer_at<LibraryIo, LockedIo>(file, offset, buf, count, datatype, completion);
}

}  // namespace

int File_read_shared(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return shared_access<PMPI_File_read_at, File_read_at>(file, "MPI_File_read_shared", Direction::read, buf,
                                            count, datatype, status);
}

int File_write_shared(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return shared_access<PMPI_File_write_at, File_write_at>(file, "MPI_File_write_shared", Direction::write,
                                             buf, count, datatype, status);
}

int File_iread_shared(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return shared_access<PMPI_File_iread_at, File_iread_at>(file, "MPI_File_iread_shared", Direction::read, buf,
                                             count, datatype, request);
}

int File_iwrite_shared(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return shared_access<PMPI_File_iwrite_at, File_iwrite_at>(file, "MPI_File_iwrite_shared", Direction::write,
                                              buf, count, datatype, request);
}

}  // namespace piox::mpiio
