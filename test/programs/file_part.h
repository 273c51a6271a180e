/*
 * file_part.h - for the test programs where each rank owns a part of one file at a
 * fixed byte offset: fill the part with one byte value, and check every byte of it
 * after a write, both through the default byte view ("native", MPI_BYTE).
 */
#ifndef PIOX_FILE_PART_H
#define PIOX_FILE_PART_H

#include "testlib.h"

/* Collective: bytes [at, at + n) of fh become `fill`. Resets the view. */
static inline void file_part_fill(MPI_File fh, MPI_Offset at, int n, unsigned char fill)
{
    unsigned char bytes[n];
    for (int i = 0; i < n; i++)
        bytes[i] = fill;
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, at, bytes, n, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
}

/* Collective: once every process's writes are synced, bytes [at, at + n) of fh must
 * be `expected`; a failure names `routine` and the byte. Resets the view. */
static inline void file_part_check(MPI_File fh, MPI_Offset at, const unsigned char *expected,
                                   int n, const char *routine)
{
    unsigned char bytes[n];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, at, bytes, n, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(bytes[i] == expected[i], "%s: byte %d of rank %d's part is 0x%02x, expected 0x%02x",
              routine, i, rank, bytes[i], expected[i]);
}

#endif
