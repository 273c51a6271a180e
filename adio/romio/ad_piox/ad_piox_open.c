/*
 * ad_piox_open.c - open a file for the piox driver and give it its lock and
 * its shared file pointer.
 *
 * Open is the POSIX open of ad_ufs. It may run on one process only (the
 * creating open in ADIOI_GEN_OpenColl runs it on MPI_COMM_SELF, a deferred open
 * skips non-aggregators), so the collective creation of the lock and the
 * pointer lives in OpenColl, which every process of fd->comm reaches.
 *
 * Teardown. ROMIO's Close is not collective: ADIOI_GEN_OpenColl calls it on
 * one process after creating the file, and ADIO_Close skips it on processes
 * that never opened the file (deferred open). piox_lock_free and piox_sfp_free
 * are collective, so they cannot live there. It hangs instead on fd->comm, ROMIO's own duplicate of
 * the user's communicator, as an attribute whose delete callback frees the
 * locks: ADIO_Close calls MPI_Comm_free(&fd->comm) on every process of the
 * file (MPI_File_close is collective), and MPI runs the callback there.
 */

#include "ad_piox.h"

#include <sys/stat.h>

void ADIOI_PIOX_Open(ADIO_File fd, int *error_code)
{
    int perm, old_mask, amode = 0;
    static char myname[] = "ADIOI_PIOX_OPEN";

    if (fd->perm == ADIO_PERM_NULL) {
        old_mask = umask(022);
        umask(old_mask);
        perm = old_mask ^ 0666;
    } else
        perm = fd->perm;

    if (fd->access_mode & ADIO_CREATE)
        amode |= O_CREAT;
    if (fd->access_mode & ADIO_RDONLY)
        amode |= O_RDONLY;
    if (fd->access_mode & ADIO_WRONLY)
        amode |= O_WRONLY;
    if (fd->access_mode & ADIO_RDWR)
        amode |= O_RDWR;
    if (fd->access_mode & ADIO_EXCL)
        amode |= O_EXCL;

    fd->fd_sys = open(fd->filename, amode, perm);
    fd->fd_direct = -1;
    if (fd->fd_sys != -1 && (fd->access_mode & ADIO_APPEND))
        fd->fp_ind = fd->fp_sys_posn = lseek(fd->fd_sys, 0, SEEK_END);

    if (fd->fd_sys == -1)
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
    else
        *error_code = MPI_SUCCESS;
}

static int PIOX_keyval = MPI_KEYVAL_INVALID;

/* Runs on every process of the file when ADIO_Close frees fd->comm. */
static int PIOX_Teardown(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    ADIOI_PIOX_File *file = attr;
    int err1, err2;

    (void) comm;
    (void) keyval;
    (void) extra;
    /* ROMIO unlocks before it returns from any access: nothing is held here
     * unless an access failed half way; release so that the free may run. */
    if (file->data.depth)
        piox_lock_release(file->data.lock);
    err1 = piox_lock_free(&file->data.lock);
    err2 = piox_sfp_free(&file->sfp);
    ADIOI_Free(file);
    return err1 != MPI_SUCCESS ? err1 : err2;
}

/* Whether `flag` is true on any process of comm (collective). */
static int PIOX_any(MPI_Comm comm, int flag)
{
    int any = 1;
    MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

void ADIOI_PIOX_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    static char myname[] = "ADIOI_PIOX_OPENCOLL";
    ADIOI_PIOX_File *file;
    int err, lock_made;

    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);

    /* Every process gets here, opened or not; create the locks only if the
     * open worked everywhere, so that creation stays collective. */
    if (PIOX_any(fd->comm, *error_code != MPI_SUCCESS))
        return;

    /* Each collective step is agreed on before the next, so that a step that failed
     * everywhere (the usual case: the same resources run out on every process) is
     * undone everywhere: the lock's free is collective too. Only a step that failed
     * on some processes and not others leaves what they made, rather than hang. */
    file = ADIOI_Calloc(1, sizeof(*file));
    err = PIOX_keyval == MPI_KEYVAL_INVALID
              ? MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, PIOX_Teardown, &PIOX_keyval, NULL)
              : MPI_SUCCESS;
    if (!PIOX_any(fd->comm, err != MPI_SUCCESS))
        err = piox_lock_create(fd->comm, PIOX_LOCK_RANGE, &file->data.lock);
    else
        err = MPI_ERR_OTHER;
    lock_made = !PIOX_any(fd->comm, err != MPI_SUCCESS);
    /* MPI_MODE_APPEND: open.c sets the pointer to the end afterwards */
    if (lock_made)
        err = piox_sfp_create(fd->comm, 0, PIOX_SFP_TRANSPORT_AUTO, &file->sfp);
    if (!lock_made || PIOX_any(fd->comm, err != MPI_SUCCESS)) {
        if (lock_made && !PIOX_any(fd->comm, file->sfp != NULL))
            piox_lock_free(&file->data.lock);
        if (file->data.lock == NULL && file->sfp == NULL)
            ADIOI_Free(file);
        *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname,
                                           __LINE__, MPI_ERR_OTHER, "**io", "**io %s",
                                           "piox: cannot create the file's lock and pointer");
        return;
    }
    MPI_Comm_set_attr(fd->comm, PIOX_keyval, file);
    fd->fs_ptr = file;
}
