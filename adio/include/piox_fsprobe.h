/*
 * piox_fsprobe.h - does the file system honour fcntl byte-range locks? (C ABI)
 *
 * MPI-IO libraries (ROMIO) lock with fcntl for data sieving, atomic mode and
 * shared file pointers, and abort when the lock fails (NFS without lockd,
 * Lustre mounted without flock, many FUSE and object-store file systems).
 */
#ifndef PIOX_FSPROBE_H
#define PIOX_FSPROBE_H

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PIOX_LOCKS_WORK = 1,
    PIOX_LOCKS_FAIL = 0,    /* F_SETLK failed with ENOLCK, EOPNOTSUPP, ENOSYS or EINVAL */
    PIOX_LOCKS_UNKNOWN = -1 /* nothing could be probed (no writable directory, no file) */
} piox_locks_answer;

/* The path inside a file name given to MPI_File_open: past ROMIO's "<fs>:" driver
 * prefix when there is one (a single letter is no prefix). Points into name. */
PIOX_API const char *piox_path_of(const char *name);

/* Probes the directory that holds path (a file name as given to MPI_File_open,
 * ROMIO's "ufs:"-style prefixes allowed): takes a write lock on a temporary file
 * created there, or else a read lock on path itself. The answer is cached per
 * directory for the life of the process. Thread-safe. */
PIOX_API piox_locks_answer piox_probe_fcntl_locks(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_FSPROBE_H */
