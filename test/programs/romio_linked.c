/*
 * romio_linked DIR [LIB] - the MPI-IO routines this program calls come from the
 * library named LIB (a substring of its path, e.g. "libromio.so"): the ROMIO that
 * scripts/build-romio builds, linked before libmpich or preloaded. Each rank prints
 * where MPI_File_open resolved; with LIB given, any other library is a failure.
 *
 * Then a round trip through that ROMIO, in DIR/romio_linked.dat: every rank writes
 * one record with MPI_File_write_shared (records 0..n-1, in any order) and one with
 * MPI_File_write_at at record n+rank, and every rank reads the whole file back.
 * Layout: 2n records of RECORD bytes, "rank %d shared" / "rank %d at", NUL padded.
 * Build: mpicc romio_linked.c -L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -lromio -ldl
 */
#define _GNU_SOURCE
#include "testlib.h"

#include <dlfcn.h>
#include <string.h>

enum { RECORD = 32 };

static void check_resolution(const char *expected)
{
    Dl_info info;
    const char *where = dladdr((void *) MPI_File_open, &info) ? info.dli_fname : "(unknown)";
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: MPI_File_open is in %s\n", rank, where);
    fflush(stdout);
    if (expected)
        CHECK(strstr(where, expected) != NULL, "MPI_File_open is in %s, not %s", where,
              expected);
}

static void record_of(char *out, int rank, const char *kind)
{
    memset(out, 0, RECORD);
    snprintf(out, RECORD, "rank %d %s", rank, kind);
}

int main(int argc, char **argv)
{
    char dir[3000], path[4096], mine[RECORD];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    check_resolution(argc > 2 ? argv[2] : NULL);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/romio_linked.dat", dir);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL); /* absent the first time */
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh));
    record_of(mine, rank, "shared");
    CHECK_MPI(MPI_File_write_shared(fh, mine, RECORD, MPI_CHAR, MPI_STATUS_IGNORE));
    record_of(mine, rank, "at");
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset) (size + rank) * RECORD, mine, RECORD,
                                MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));

    char *all = calloc((size_t) 2 * size, RECORD);
    MPI_Status status;
    int count = -1;
    CHECK_MPI(MPI_File_read_at(fh, 0, all, 2 * size * RECORD, MPI_CHAR, &status));
    MPI_Get_count(&status, MPI_CHAR, &count);
    CHECK(count == 2 * size * RECORD, "read %d bytes, expected %d", count, 2 * size * RECORD);
    for (int r = 0; r < size; r++) {
        int seen = 0;
        record_of(mine, r, "shared");
        for (int i = 0; i < size; i++)
            seen += memcmp(all + (size_t) i * RECORD, mine, RECORD) == 0;
        CHECK(seen == 1, "rank %d's shared record is in the file %d times", r, seen);
        record_of(mine, r, "at");
        CHECK(memcmp(all + (size_t) (size + r) * RECORD, mine, RECORD) == 0,
              "record %d is not rank %d's write_at record", size + r, r);
    }
    free(all);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));

    return testlib_finish_and_finalize();
}
