/*
 * ad_piox_sfp.c - the shared file pointer of the piox driver.
 *
 * ROMIO keeps a file's shared pointer in a hidden file (".<name>.shfp.<n>")
 * read and rewritten under an fcntl lock, and orders ordered-mode accesses by
 * passing a token from rank to rank. Patch 0007 lets a driver keep the pointer
 * itself; this one keeps it in a piox_sfp created over fd->comm at open:
 *
 *   GetSharedFP   one atomic fetch-and-add (a plain read when incr is 0);
 *   SetSharedFP   one atomic store (ROMIO calls it from one process inside a
 *                 collective call and follows with a barrier);
 *   GetOrderedFP  one exclusive scan of the increments plus one update,
 *                 collective, instead of P serial lock round trips.
 *
 * Units are what ROMIO passes: etypes of the current view.
 */

#include "ad_piox.h"

/* ROMIO's error code for a failed pointer operation, with piox's class. */
static int PIOX_sfp_error(const char *myname, int line, int err)
{
    int error_class = MPI_ERR_IO;
    if (err == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Error_class(err, &error_class);
    return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, line, error_class,
                                "**io", "**io %s", "piox shared file pointer");
}

static piox_sfp *PIOX_sfp_of(ADIO_File fd)
{
    return fd->fs_ptr ? ((ADIOI_PIOX_File *) fd->fs_ptr)->sfp : NULL;
}

void ADIOI_PIOX_GetSharedFP(ADIO_File fd, ADIO_Offset incr, ADIO_Offset * shared_fp,
                            int *error_code)
{
    static char myname[] = "ADIOI_PIOX_GETSHAREDFP";
    MPI_Offset value = 0;
    int err;

    if (incr == 0)
        err = piox_sfp_read(PIOX_sfp_of(fd), &value);
    else
        err = piox_sfp_fetch_add(PIOX_sfp_of(fd), incr, &value);
    *shared_fp = value;
    *error_code = PIOX_sfp_error(myname, __LINE__, err);
}

void ADIOI_PIOX_SetSharedFP(ADIO_File fd, ADIO_Offset offset, int *error_code)
{
    static char myname[] = "ADIOI_PIOX_SETSHAREDFP";
    *error_code = PIOX_sfp_error(myname, __LINE__, piox_sfp_store(PIOX_sfp_of(fd), offset));
}

void ADIOI_PIOX_GetOrderedFP(ADIO_File fd, ADIO_Offset incr, ADIO_Offset * shared_fp,
                             int *error_code)
{
    static char myname[] = "ADIOI_PIOX_GETORDEREDFP";
    MPI_Offset value = 0;
    int err = piox_sfp_ordered(PIOX_sfp_of(fd), incr, &value);
    *shared_fp = value;
    *error_code = PIOX_sfp_error(myname, __LINE__, err);
}
