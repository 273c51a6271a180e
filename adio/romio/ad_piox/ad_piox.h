/*
 * ad_piox.h - the piox ROMIO driver: UFS data movement, piox byte-range locks,
 * piox's shared file pointer.
 *
 * ROMIO's lock calls (atomic mode, write data sieving) go to piox_lock
 * (PIOX_LOCK_RANGE) instead of fcntl, so they work on file systems whose fcntl
 * locks fail or are slow (NFS without lockd, FUSE, ...). The shared file
 * pointer is a piox_sfp (one atomic counter in shared memory or behind MPI
 * atomics) reached through the GetSharedFP/SetSharedFP/GetOrderedFP slots that
 * patch 0007 adds: no hidden file, no token chain in ordered mode. On one node,
 * atomic-mode reads go without a lock when no write overlapped them (piox's
 * optimistic reads, through the slots of patch 0019).
 */

#ifndef AD_PIOX_H_INCLUDED
#define AD_PIOX_H_INCLUDED

#include "adio.h"
#include <unistd.h>
#include <sys/types.h>
#include <fcntl.h>

#include "piox_lock.h"
#include "piox_sfp.h"

/* The file's lock object and what this process holds of it. ROMIO unlocks
 * with the same (offset, len) it locked, and never holds two ranges of one file
 * at once; depth counts a re-lock of a range already held (ad_piox_lock.c). */
typedef struct {
    piox_lock *lock;
    int depth;                  /* 0: nothing held */
    piox_lock_mode mode;
    piox_extent held;
} ADIOI_PIOX_Lock;

/* Per-file state, in fd->fs_ptr. Created collectively in OpenColl; freed
 * collectively when ROMIO frees fd->comm (ADIO_Close), see ad_piox_open.c. */
typedef struct {
    ADIOI_PIOX_Lock data;       /* the file's byte ranges */
    piox_sfp *sfp;              /* the shared file pointer, in etypes of the view */
} ADIOI_PIOX_File;

void ADIOI_PIOX_Open(ADIO_File fd, int *error_code);
void ADIOI_PIOX_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
int ADIOI_PIOX_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                       ADIO_Offset len);
void ADIOI_PIOX_GetSharedFP(ADIO_File fd, ADIO_Offset incr, ADIO_Offset * shared_fp,
                            int *error_code);
void ADIOI_PIOX_SetSharedFP(ADIO_File fd, ADIO_Offset offset, int *error_code);
void ADIOI_PIOX_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                            int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                            int *error_code);
void ADIOI_PIOX_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                             int *error_code);
void ADIOI_PIOX_GetOrderedFP(ADIO_File fd, ADIO_Offset incr, ADIO_Offset * shared_fp,
                             int *error_code);
int ADIOI_PIOX_OptimisticReadBegin(ADIO_File fd, ADIO_Offset offset, ADIO_Offset len);
int ADIOI_PIOX_OptimisticReadEnd(ADIO_File fd);

#endif /* AD_PIOX_H_INCLUDED */
