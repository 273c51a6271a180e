// The data-access routines piox takes over in atomic mode (explicit offsets and
// individual file pointers; blocking, nonblocking, collective, split collective).
// Each has the MPI routine's name and arguments with the file handle replaced by
// the file's atomic-mode state; the shim calls them only while the file is in
// atomic mode. See atomic_file.h for what they guarantee.
#ifndef PIOX_MPIIO_ATOMIC_ACCESS_H
#define PIOX_MPIIO_ATOMIC_ACCESS_H

#include "atomic_file.h"

namespace piox::mpiio {

#define PIOX_ATOMIC_EXPLICIT(Name, Buffer, Last)                                              \
    int Name(AtomicFile &file, MPI_Offset offset, Buffer buf, int count, MPI_Datatype datatype, \
             Last);
#define PIOX_ATOMIC_INDIVIDUAL(Name, Buffer, Last)                                            \
    int Name(AtomicFile &file, Buffer buf, int count, MPI_Datatype datatype, Last);

PIOX_ATOMIC_EXPLICIT(File_read_at, void *, MPI_Status *status)
PIOX_ATOMIC_EXPLICIT(File_write_at, const void *, MPI_Status *status)
PIOX_ATOMIC_EXPLICIT(File_read_at_all, void *, MPI_Status *status)
PIOX_ATOMIC_EXPLICIT(File_write_at_all, const void *, MPI_Status *status)
PIOX_ATOMIC_EXPLICIT(File_iread_at, void *, MPI_Request *request)
PIOX_ATOMIC_EXPLICIT(File_iwrite_at, const void *, MPI_Request *request)
PIOX_ATOMIC_EXPLICIT(File_iread_at_all, void *, MPI_Request *request)
PIOX_ATOMIC_EXPLICIT(File_iwrite_at_all, const void *, MPI_Request *request)
PIOX_ATOMIC_INDIVIDUAL(File_read, void *, MPI_Status *status)
PIOX_ATOMIC_INDIVIDUAL(File_write, const void *, MPI_Status *status)
PIOX_ATOMIC_INDIVIDUAL(File_read_all, void *, MPI_Status *status)
PIOX_ATOMIC_INDIVIDUAL(File_write_all, const void *, MPI_Status *status)
PIOX_ATOMIC_INDIVIDUAL(File_iread, void *, MPI_Request *request)
PIOX_ATOMIC_INDIVIDUAL(File_iwrite, const void *, MPI_Request *request)
PIOX_ATOMIC_INDIVIDUAL(File_iread_all, void *, MPI_Request *request)
PIOX_ATOMIC_INDIVIDUAL(File_iwrite_all, const void *, MPI_Request *request)

#undef PIOX_ATOMIC_EXPLICIT
#undef PIOX_ATOMIC_INDIVIDUAL

int File_read_at_all_begin(AtomicFile &file, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype);
int File_write_at_all_begin(AtomicFile &file, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype);
int File_read_all_begin(AtomicFile &file, void *buf, int count, MPI_Datatype datatype);
int File_write_all_begin(AtomicFile &file, const void *buf, int count, MPI_Datatype datatype);
int File_read_at_all_end(AtomicFile &file, void *buf, MPI_Status *status);
int File_write_at_all_end(AtomicFile &file, const void *buf, MPI_Status *status);
int File_read_all_end(AtomicFile &file, void *buf, MPI_Status *status);
int File_write_all_end(AtomicFile &file, const void *buf, MPI_Status *status);

}  // namespace piox::mpiio

#endif
