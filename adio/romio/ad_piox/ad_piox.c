/*
 * ad_piox.c - the function table of the piox driver ("piox:" prefix).
 * Data moves through ROMIO's generic UFS routines (the strided ones with a
 * sieving buffer as large as the access in atomic mode, ad_piox_strided.c); Open,
 * OpenColl, SetLock, the shared-pointer slots (patch 0007) and the optimistic
 * read slots (patch 0019) are piox's own.
 */

#include "ad_piox.h"

/* adioi.h has the ADIOI_Fns_struct define */
#include "adioi.h"

struct ADIOI_Fns_struct ADIO_PIOX_operations = {
    ADIOI_PIOX_Open,    /* Open */
    ADIOI_PIOX_OpenColl,        /* OpenColl */
    ADIOI_GEN_ReadContig,       /* ReadContig */
    ADIOI_GEN_WriteContig,      /* WriteContig */
    ADIOI_GEN_ReadStridedColl,  /* ReadStridedColl */
    ADIOI_GEN_WriteStridedColl, /* WriteStridedColl */
    ADIOI_GEN_SeekIndividual,   /* SeekIndividual */
    ADIOI_GEN_Fcntl,    /* Fcntl */
    ADIOI_GEN_SetInfo,  /* SetInfo */
    ADIOI_PIOX_ReadStrided,     /* ReadStrided */
    ADIOI_PIOX_WriteStrided,    /* WriteStrided */
    ADIOI_GEN_Close,    /* Close */
#ifdef ROMIO_HAVE_WORKING_AIO
    ADIOI_GEN_IreadContig,      /* IreadContig */
    ADIOI_GEN_IwriteContig,     /* IwriteContig */
#else
    ADIOI_FAKE_IreadContig,     /* IreadContig */
    ADIOI_FAKE_IwriteContig,    /* IwriteContig */
#endif
    ADIOI_GEN_IODone,   /* ReadDone */
    ADIOI_GEN_IODone,   /* WriteDone */
    ADIOI_GEN_IOComplete,       /* ReadComplete */
    ADIOI_GEN_IOComplete,       /* WriteComplete */
    ADIOI_GEN_IreadStrided,     /* IreadStrided */
    ADIOI_GEN_IwriteStrided,    /* IwriteStrided */
    ADIOI_GEN_Flush,    /* Flush */
    ADIOI_GEN_Resize,   /* Resize */
    ADIOI_GEN_Delete,   /* Delete */
    ADIOI_GEN_Feature,  /* Features */
    "PIOX: UFS data path, piox byte-range locks and shared file pointer",
    ADIOI_GEN_IreadStridedColl, /* IreadStridedColl */
    ADIOI_GEN_IwriteStridedColl,        /* IwriteStridedColl */
    ADIOI_PIOX_SetLock, /* SetLock */
    ADIOI_PIOX_GetSharedFP,     /* GetSharedFP */
    ADIOI_PIOX_SetSharedFP,     /* SetSharedFP */
    ADIOI_PIOX_GetOrderedFP,    /* GetOrderedFP */
    ADIOI_PIOX_OptimisticReadBegin,     /* OptimisticReadBegin */
    ADIOI_PIOX_OptimisticReadEnd        /* OptimisticReadEnd */
};
