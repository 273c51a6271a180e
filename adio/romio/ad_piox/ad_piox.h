/*
 * ad_piox.h - the piox ROMIO driver: UFS data movement, piox byte-range locks.
 *
 * ROMIO's lock calls (atomic mode, write data sieving, the shared-pointer file)
 * go to piox_lock (PIOX_LOCK_RANGE) instead of fcntl, so they work on file
 * systems whose fcntl locks fail or are slow (NFS without lockd, FUSE, ...).
 */

#ifndef AD_PIOX_H_INCLUDED
#define AD_PIOX_H_INCLUDED

#include "adio.h"
#include <unistd.h>
#include <sys/types.h>
#include <fcntl.h>

#include "piox_lock.h"

/* One lock object and what this process holds of it. ROMIO unlocks with the
 * same (offset, len) it locked, and never holds two ranges of one file at once;
 * depth counts a re-lock of a range already held (see ad_piox_lock.c). */
typedef struct {
    piox_lock *lock;
    int depth;                  /* 0: nothing held */
    piox_lock_mode mode;
    piox_extent held;
} ADIOI_PIOX_Lock;

/* Per-file state, in fd->fs_ptr. Created collectively in OpenColl; freed
 * collectively when ROMIO frees fd->comm (ADIO_Close), see ad_piox_open.c. */
typedef struct ADIOI_PIOX_File {
    ADIO_File fd;
    ADIOI_PIOX_Lock data;       /* the file's byte ranges */
    ADIOI_PIOX_Lock shfp;       /* the shared-pointer file's, for all of fd->comm */
    struct ADIOI_PIOX_File *next;       /* open piox files of this process */
} ADIOI_PIOX_File;

void ADIOI_PIOX_Open(ADIO_File fd, int *error_code);
void ADIOI_PIOX_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
int ADIOI_PIOX_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                       ADIO_Offset len);

/* The registry of open piox files (ad_piox_lock.c). */
void ADIOI_PIOX_Register(ADIOI_PIOX_File * file);
void ADIOI_PIOX_Unregister(ADIOI_PIOX_File * file);

#endif /* AD_PIOX_H_INCLUDED */
