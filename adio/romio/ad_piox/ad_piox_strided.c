/*
 * ad_piox_strided.c - noncontiguous independent accesses in atomic mode.
 *
 * ROMIO's generic strided routines move the data, as for every file of this
 * driver. In atomic mode they lock the access's whole extent (ad_write_str.c,
 * and ad_read_str.c with patch 0010), then sieve it through a buffer of the
 * ind_wr_buffer_size / ind_rd_buffer_size hint, one read (and one write) per
 * buffer: with ROMIO's test hints (1,107 and 1,209 bytes) about 110 preads and
 * 57 pwrites for an access of 10,000 ints one int apart. The lock covers the
 * whole extent either way, so one buffer as large as the extent changes nothing
 * that other processes can see and saves the system calls. The buffer hints are
 * only performance hints (MPI-3.1 13.2.8): here they are raised, for this call,
 * to the access's extent, at most PIOX_ATOMIC_SIEVE bytes, as piox by preload
 * sieves whole spans. Outside atomic mode the user's hints stand.
 */

#include "ad_piox.h"
#include "adioi.h"

#include <stdio.h>
#include <stdlib.h>

/* piox by preload sieves spans up to this size at once (mpiio/own_transfer.cpp). */
#define PIOX_ATOMIC_SIEVE (4 << 20)

/* About the file bytes an access of count x datatype spans: its data spread over
 * the filetype's extent in the proportion the filetype holds data, plus one extent
 * for where it starts within a tile. */
static MPI_Count PIOX_span_estimate(ADIO_File fd, int count, MPI_Datatype datatype)
{
    MPI_Count type_size = 0, filetype_size = 0, lb = 0, filetype_extent = 0;
    MPI_Type_size_x(datatype, &type_size);
    MPI_Type_size_x(fd->filetype, &filetype_size);
    MPI_Type_get_extent_x(fd->filetype, &lb, &filetype_extent);
    if (filetype_size <= 0)
        return 0;
    return (MPI_Count) count * type_size / filetype_size * filetype_extent + filetype_extent;
}

/* The sieving buffer size for this call: the user's hint, or in atomic mode at
 * least the access's span (at most PIOX_ATOMIC_SIEVE). */
static int PIOX_sieve_size(ADIO_File fd, int hint, int count, MPI_Datatype datatype)
{
    MPI_Count span;
    if (!fd->atomicity || hint >= PIOX_ATOMIC_SIEVE)
        return hint;
    span = PIOX_span_estimate(fd, count, datatype);
    if (span <= hint)
        return hint;
    return span < PIOX_ATOMIC_SIEVE ? (int) span : PIOX_ATOMIC_SIEVE;
}

void ADIOI_PIOX_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                            int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                            int *error_code)
{
    /* ad_read_str.c takes the size from fd->info, not fd->hints (ad_write_str.c's
     * source): the info's value is changed for the call and put back. */
    char hint[MPI_MAX_INFO_VAL + 1] = "", sieve[32];
    int found = 0, user = 0, size = 0;
    if (fd->atomicity) {  /* else the user's size stands: no info lookup on this path */
        ADIOI_Info_get(fd->info, "ind_rd_buffer_size", MPI_MAX_INFO_VAL, hint, &found);
        user = found ? atoi(hint) : 0;
        size = found ? PIOX_sieve_size(fd, user, count, datatype) : 0;
    }
    if (size != user) {
        snprintf(sieve, sizeof sieve, "%d", size);
        ADIOI_Info_set(fd->info, "ind_rd_buffer_size", sieve);
    }
    ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    if (size != user)
        ADIOI_Info_set(fd->info, "ind_rd_buffer_size", hint);
}

void ADIOI_PIOX_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                             int *error_code)
{
    int hint = fd->hints->ind_wr_buffer_size;
    fd->hints->ind_wr_buffer_size = PIOX_sieve_size(fd, hint, count, datatype);
    ADIOI_GEN_WriteStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    fd->hints->ind_wr_buffer_size = hint;
}
