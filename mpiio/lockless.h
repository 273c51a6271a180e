// Files on a file system whose fcntl locks fail: detecting them at open, and the
// hints that keep the MPI library (ROMIO) from ever taking such a lock on them.
//
// Outside atomic mode and shared file pointers (which piox takes over), ROMIO
// locks in one place: data sieving for noncontiguous independent writes (its
// read-modify-write of the sieved region), also reached from collective writes
// that fall back to independent I/O. Switching write sieving off
// (romio_ds_write=disable) removes it; reads sieve without locks.
#ifndef PIOX_MPIIO_LOCKLESS_H
#define PIOX_MPIIO_LOCKLESS_H

#include <mpi.h>

namespace piox::mpiio {

enum class LocklessPolicy { detect, lockless, locking };  // hint piox_lockless=auto|yes|no

// Collective over comm: rank 0 probes the file's directory (adio/include/
// piox_fsprobe.h, cached per directory) and tells the others.
int file_is_lockless(MPI_Comm comm, const char *filename, LocklessPolicy policy, bool *lockless);

// A new info: info's hints (info may be MPI_INFO_NULL) plus those that keep the
// library from locking. Free it with MPI_Info_free.
int info_for_lockless(MPI_Info info, MPI_Info *out);

// The library's MPI-IO is ROMIO, whose romio_* hints piox sets: MPICH's. Open MPI's
// default, OMPIO, has no such hints, and piox leaves its hints alone (under Open
// MPI's optional romio321 component piox does not turn ROMIO's sieving off).
constexpr bool library_is_romio()
{
#ifdef MPICH_VERSION
    return true;
#else
    return false;
#endif
}

}  // namespace piox::mpiio

#endif
