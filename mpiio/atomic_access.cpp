// Data access in atomic mode: lock the access's bytes, move the data with the
// library's blocking independent routine, unlock. See atomic_file.h for why
// collective and nonblocking routines take the same path.
#include "atomic_access.h"

#include "atomic_sieve.h"
#include "completed_request.h"
#include "errors.h"

namespace piox::mpiio {
namespace {

constexpr Direction R = Direction::read;
constexpr Direction W = Direction::write;

template <auto Transfer, typename Buffer>
int at_offset(AtomicFile &file, Direction direction, MPI_Offset offset, Buffer buf, int count,
              MPI_Datatype datatype, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (sieved_transfer(file, direction, offset, const_cast<void *>(buf), count, datatype, status,
                        &rc))
        return rc;
    return with_access_locked(file, direction, offset, count, datatype, [&] {
        return Transfer(file.fh, offset, buf, count, datatype, status);
    });
}

// The individual pointer is the process's own: reading it and then transferring
// (which advances it) needs no protection from other processes.
template <auto Transfer, typename Buffer>
int at_pointer(AtomicFile &file, Direction direction, Buffer buf, int count,
               MPI_Datatype datatype, MPI_Status *status)
{
    MPI_Offset offset = 0;
    int rc = PMPI_File_get_position(file.fh, &offset);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    if (sieved_transfer(file, direction, offset, const_cast<void *>(buf), count, datatype, status,
                        &rc)) {
        // Moved on piox's own descriptor: advance the pointer as the library would.
        MPI_Count size = 0;
        PMPI_Type_size_x(datatype, &size);
        const MPI_Offset etypes = size * count / piox_view_etype_size(file.view);
        int moved = PMPI_File_seek(file.fh, offset + etypes, MPI_SEEK_SET);
        return rc != MPI_SUCCESS ? rc : (moved == MPI_SUCCESS ? rc : raise_code(file.fh, moved));
    }
    return with_access_locked(file, direction, offset, count, datatype, [&] {
        return Transfer(file.fh, buf, count, datatype, status);
    });
}

int finished_request(AtomicFile &file, int rc, const MPI_Status &status, MPI_Request *request)
{
    if (request == nullptr)
        return raise_error(file.fh, MPI_ERR_REQUEST, "'" + file.filename + "': request is NULL");
    *request = MPI_REQUEST_NULL;
    if (rc != MPI_SUCCESS)
        return rc;  // reported by the transfer
    rc = completed_request(status, request);
    return rc == MPI_SUCCESS ? rc : raise_code(file.fh, rc);
}

// Split collectives: the begin call moves the data (MPI lets it), the end call
// returns the status. One split collective per file at a time (MPI-3.1 13.4.5).
int begin_split(AtomicFile &file, const char *routine)
{
    if (!file.split_active)
        return MPI_SUCCESS;
    return raise_error(file.fh, MPI_ERR_OTHER, std::string(routine) + " on '" + file.filename +
                                                   "': a split collective is outstanding");
}

int end_split(AtomicFile &file, const char *routine, MPI_Status *status)
{
    if (!file.split_active)
        return raise_error(file.fh, MPI_ERR_OTHER, std::string(routine) + " on '" +
                                                       file.filename +
                                                       "': no split collective was begun");
    file.split_active = false;
    if (status != MPI_STATUS_IGNORE)
        *status = file.split_status;
    return MPI_SUCCESS;
}

}  // namespace

// Blocking, independent and collective alike.
int File_read_at(AtomicFile &f, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_offset<PMPI_File_read_at>(f, R, o, b, c, t, s);
}
int File_write_at(AtomicFile &f, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                  MPI_Status *s)
{
    return at_offset<PMPI_File_write_at>(f, W, o, b, c, t, s);
}
int File_read_at_all(AtomicFile &f, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_offset<PMPI_File_read_at>(f, R, o, b, c, t, s);
}
int File_write_at_all(AtomicFile &f, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                      MPI_Status *s)
{
    return at_offset<PMPI_File_write_at>(f, W, o, b, c, t, s);
}
int File_read(AtomicFile &f, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_pointer<PMPI_File_read>(f, R, b, c, t, s);
}
int File_write(AtomicFile &f, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_pointer<PMPI_File_write>(f, W, b, c, t, s);
}
int File_read_all(AtomicFile &f, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_pointer<PMPI_File_read>(f, R, b, c, t, s);
}
int File_write_all(AtomicFile &f, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return at_pointer<PMPI_File_write>(f, W, b, c, t, s);
}

// Nonblocking: finished before they return.
int File_iread_at(AtomicFile &f, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Request *r)
{
    MPI_Status s;
    return finished_request(f, File_read_at(f, o, b, c, t, &s), s, r);
}
int File_iwrite_at(AtomicFile &f, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                   MPI_Request *r)
{
    MPI_Status s;
    return finished_request(f, File_write_at(f, o, b, c, t, &s), s, r);
}
int File_iread_at_all(AtomicFile &f, MPI_Offset o, void *b, int c, MPI_Datatype t,
                      MPI_Request *r)
{
    return File_iread_at(f, o, b, c, t, r);
}
int File_iwrite_at_all(AtomicFile &f, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                       MPI_Request *r)
{
    return File_iwrite_at(f, o, b, c, t, r);
}
int File_iread(AtomicFile &f, void *b, int c, MPI_Datatype t, MPI_Request *r)
{
    MPI_Status s;
    return finished_request(f, File_read(f, b, c, t, &s), s, r);
}
int File_iwrite(AtomicFile &f, const void *b, int c, MPI_Datatype t, MPI_Request *r)
{
    MPI_Status s;
    return finished_request(f, File_write(f, b, c, t, &s), s, r);
}
int File_iread_all(AtomicFile &f, void *b, int c, MPI_Datatype t, MPI_Request *r)
{
    return File_iread(f, b, c, t, r);
}
int File_iwrite_all(AtomicFile &f, const void *b, int c, MPI_Datatype t, MPI_Request *r)
{
    return File_iwrite(f, b, c, t, r);
}

// Split collectives.
int File_read_at_all_begin(AtomicFile &f, MPI_Offset o, void *b, int c, MPI_Datatype t)
{
    int rc = begin_split(f, "MPI_File_read_at_all_begin");
    if (rc != MPI_SUCCESS)
        return rc;
    f.split_active = true;
    return File_read_at(f, o, b, c, t, &f.split_status);
}
int File_write_at_all_begin(AtomicFile &f, MPI_Offset o, const void *b, int c, MPI_Datatype t)
{
    int rc = begin_split(f, "MPI_File_write_at_all_begin");
    if (rc != MPI_SUCCESS)
        return rc;
    f.split_active = true;
    return File_write_at(f, o, b, c, t, &f.split_status);
}
int File_read_all_begin(AtomicFile &f, void *b, int c, MPI_Datatype t)
{
    int rc = begin_split(f, "MPI_File_read_all_begin");
    if (rc != MPI_SUCCESS)
        return rc;
    f.split_active = true;
    return File_read(f, b, c, t, &f.split_status);
}
int File_write_all_begin(AtomicFile &f, const void *b, int c, MPI_Datatype t)
{
    int rc = begin_split(f, "MPI_File_write_all_begin");
    if (rc != MPI_SUCCESS)
        return rc;
    f.split_active = true;
    return File_write(f, b, c, t, &f.split_status);
}
int File_read_at_all_end(AtomicFile &f, void *, MPI_Status *s)
{
    return end_split(f, "MPI_File_read_at_all_end", s);
}
int File_write_at_all_end(AtomicFile &f, const void *, MPI_Status *s)
{
    return end_split(f, "MPI_File_write_at_all_end", s);
}
int File_read_all_end(AtomicFile &f, void *, MPI_Status *s)
{
    return end_split(f, "MPI_File_read_all_end", s);
}
int File_write_all_end(AtomicFile &f, const void *, MPI_Status *s)
{
    return end_split(f, "MPI_File_write_all_end", s);
}

}  // namespace piox::mpiio
