// The parts of transfer.h that are not templates.
#include "transfer.h"

#include "completed_request.h"
#include "errors.h"
#include "piox_fsprobe.h"

#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace piox::mpiio {
namespace {

bool writes(SplitKind kind)
{
    return kind == SplitKind::write_at_all || kind == SplitKind::write_all ||
           kind == SplitKind::write_ordered;
}

}  // namespace

int finished_request(OpenFile &file, int rc, const MPI_Status &status, MPI_Request *request)
{
    if (request == nullptr)
        return raise_error(file.fh, MPI_ERR_REQUEST, "'" + file.filename + "': request is NULL");
    *request = MPI_REQUEST_NULL;
    if (rc != MPI_SUCCESS)
        return rc;  // reported by the transfer
    rc = completed_request(status, request);
    return rc == MPI_SUCCESS ? rc : raise_code(file.fh, rc);
}

void release_locks_after_failed_write(OpenFile &file)
{
    int level = MPI_THREAD_SINGLE;
    if (PMPI_Query_thread(&level) != MPI_SUCCESS || level == MPI_THREAD_MULTIPLE)
        return;
    const int own_fd = file.atomic != nullptr ? file.atomic->own_fd : -1;
    const int fd = own_fd >= 0 ? own_fd : open(piox_path_of(file.filename.c_str()), O_RDONLY);
    if (fd < 0)
        return;
    struct flock whole_file {};
    whole_file.l_type = F_UNLCK;
    whole_file.l_whence = SEEK_SET;  // l_start 0, l_len 0: every byte
    (void)fcntl(fd, F_SETLK, &whole_file);
    if (fd != own_fd)
        close(fd);
}

int check_no_split(OpenFile &file, const char *routine)
{
    if (file.split.kind == SplitKind::none)
        return MPI_SUCCESS;
    return raise_error(file.fh, MPI_ERR_IO, std::string(routine) + " on '" + file.filename +
                                                "': a split collective is outstanding");
}

int end_split(OpenFile &file, const char *routine, SplitKind expected, const void *buf,
              MPI_Status *status)
{
    if (file.split.kind != expected)
        return raise_error(file.fh, MPI_ERR_IO,
                           std::string(routine) + " on '" + file.filename +
                               "': no matching begin call is outstanding");
    const SplitCollective split = file.split;
    file.split = SplitCollective{};
    void *data = const_cast<void *>(buf);
    if (split.forwarded && (expected == SplitKind::write_all || expected == SplitKind::read_all))
        return writes(expected) ? PIOX_NEXT_ROUTINE(File_write_all_end)(file.fh, buf, status)
                                : PIOX_NEXT_ROUTINE(File_read_all_end)(file.fh, data, status);
    if (split.forwarded)
        return writes(expected) ? PIOX_NEXT_ROUTINE(File_write_at_all_end)(file.fh, buf, status)
                                : PIOX_NEXT_ROUTINE(File_read_at_all_end)(file.fh, data, status);
    if (status != MPI_STATUS_IGNORE)
        *status = split.status;
    return MPI_SUCCESS;
}

}  // namespace piox::mpiio
