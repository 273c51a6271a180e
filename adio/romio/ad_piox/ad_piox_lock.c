/*
 * ad_piox_lock.c - ROMIO's SetLock on piox byte-range locks.
 *
 * ROMIO locks with fcntl-style calls (cmd, type, offset, whence, len) through
 * fd->fns->ADIOI_xxx_SetLock (ADIOI_WRITE_LOCK, ADIOI_UNLOCK in adioi.h). Here
 * each call becomes one extent of the file's piox_lock, so atomic mode and
 * write data sieving never call fcntl. (There is no shared-pointer file to
 * lock: the driver keeps the pointer itself, ad_piox_sfp.c.)
 *
 * Nesting. piox_lock holds one request per process. ROMIO 4.0.2 never nests
 * locks on one file: in ad_write_str.c the whole-range lock (atomicity or data
 * sieving) and the per-buffer locks (neither) exclude each other; ad_read_str.c
 * and the atomic paths in mpi-io/ (read.c, write.c, *_sh.c, i*.c) take one lock
 * around one access. As
 * fcntl would, a re-lock of a range already held in a strong enough mode is
 * accepted (counted, undone by the matching unlock); any other nested lock
 * would need two requests and aborts, as ADIOI_GEN_SetLock aborts when fcntl
 * fails (ROMIO's callers ignore SetLock's return value).
 */

#include "ad_piox.h"

#include <stdio.h>
#include <sys/stat.h>

/* fcntl's l_len == 0, "to the end of the file and beyond": a length no file
 * reaches, yet offset + length cannot overflow. */
#define PIOX_LOCK_TO_EOF(start) (((ADIO_Offset) 1 << 62) - (start))

/* The file's byte-range lock and what this process holds of it; NULL before
 * OpenColl made it. */
static ADIOI_PIOX_Lock *PIOX_data_lock(ADIO_File fd)
{
    return fd->fs_ptr ? &((ADIOI_PIOX_File *) fd->fs_ptr)->data : NULL;
}

static void PIOX_fail(ADIO_File fd, const char *what, ADIO_Offset offset, ADIO_Offset len,
                      int err)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int msglen;
    if (err != MPI_SUCCESS)
        MPI_Error_string(err, msg, &msglen);
    fprintf(stderr, "ADIOI_PIOX_SetLock: %s (file %s, offset %llu, length %llu) %s\n", what,
            fd->filename, (unsigned long long) offset, (unsigned long long) len, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int ADIOI_PIOX_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                       ADIO_Offset len)
{
    ADIOI_PIOX_Lock *l = PIOX_data_lock(fd);
    piox_extent ext;
    piox_lock_mode mode = (type == F_RDLCK) ? PIOX_LOCK_READ : PIOX_LOCK_WRITE;
    struct stat st;
    int err;

    (void) cmd; /* F_SETLK and F_SETLKW both wait: ROMIO never tries a lock */
    if (l == NULL)
        PIOX_fail(fd, "the file has no piox lock", offset, len, MPI_SUCCESS);

    if (whence == SEEK_CUR)
        offset += lseek(fd->fd_sys, 0, SEEK_CUR);
    else if (whence == SEEK_END && fstat(fd->fd_sys, &st) == 0)
        offset += st.st_size;
    if (len < 0) {  /* fcntl's negative l_len: the -len bytes before offset */
        offset += len;
        len = -len;
    }
    ext.offset = offset;
    ext.length = (len == 0) ? PIOX_LOCK_TO_EOF(offset) : len;

    if (type == F_UNLCK) {
        if (l->depth == 0 || --l->depth > 0)
            return MPI_SUCCESS; /* nothing held (fcntl allows it), or a re-lock */
        err = piox_lock_release(l->lock);
        if (err != MPI_SUCCESS)
            PIOX_fail(fd, "release failed", offset, len, err);
        return MPI_SUCCESS;
    }

    if (l->depth > 0) {
        if (ext.offset >= l->held.offset &&
            ext.offset + ext.length <= l->held.offset + l->held.length &&
            (l->mode == PIOX_LOCK_WRITE || mode == PIOX_LOCK_READ)) {
            l->depth++;
            return MPI_SUCCESS;
        }
        PIOX_fail(fd, "nested lock outside the range already held", offset, len, MPI_SUCCESS);
    }
    err = piox_lock_acquire(l->lock, mode, &ext, 1);
    if (err != MPI_SUCCESS)
        PIOX_fail(fd, "acquire failed", offset, len, err);
    l->depth = 1;
    l->mode = mode;
    l->held = ext;
    return MPI_SUCCESS;
}

/* Patch 0019's slots: an atomic-mode read without a lock. Begins only when
 * nothing is held (ROMIO reads optimistically instead of locking, never inside
 * a lock) and piox can tell (one node, PIOX_LOCK_RANGE); anything else, an
 * error included, answers 0 and ROMIO takes the read lock, whose errors abort
 * as above. */
int ADIOI_PIOX_OptimisticReadBegin(ADIO_File fd, ADIO_Offset offset, ADIO_Offset len)
{
    ADIOI_PIOX_Lock *l = PIOX_data_lock(fd);
    piox_extent ext;
    int begun = 0;

    if (l == NULL || l->depth > 0 || offset < 0 || len <= 0)
        return 0;
    ext.offset = offset;
    ext.length = len;
    if (piox_lock_optimistic_begin(l->lock, &ext, 1, &begun) != MPI_SUCCESS)
        return 0;
    return begun;
}

int ADIOI_PIOX_OptimisticReadEnd(ADIO_File fd)
{
    ADIOI_PIOX_Lock *l = PIOX_data_lock(fd);
    int valid = 0;

    if (l == NULL || piox_lock_optimistic_end(l->lock, &valid) != MPI_SUCCESS)
        return 0;
    return valid;
}
