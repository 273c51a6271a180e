/*
 * large_count DIR - accesses of more than 2^31 bytes, and counts past INT_MAX in
 * MPI-4's large-count routines, into a sparse file; one process (run it with -n 1).
 *
 * The file DIR/large_count holds nothing below byte BASE = 2^32 + 12345 (a hole).
 * Each access moves N = 2^31 + 4104 bytes at BASE: its first and last pages carry a
 * pattern naming the access, the rest is zero. After each write the file is read
 * back through MPI-IO and the two pages compared byte by byte; every status count
 * and pointer position is checked.
 *
 *   1. write_shared_c of N MPI_BYTEs (a count past INT_MAX) after seek_shared to
 *      BASE; read_at_c of N MPI_BYTEs.
 *   2. in atomic mode, write_at of N/4 MPI_INTs (an int count, bytes past 2^31);
 *      read_shared of N/4 MPI_INTs after seek_shared to BASE.
 *   3. the large-count routines refuse a negative count (MPI_ERR_COUNT).
 * Needs about 4.5 GiB of memory and 2 GiB of disk; takes seconds (on a VM whose first
 * touch of memory is slow, some 20).
 */
#include "testlib.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define BASE (((MPI_Offset)1 << 32) + 12345)
#define N (((MPI_Count)1 << 31) + 4104)

static unsigned char *map(MPI_Count bytes)
{
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                   0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "cannot map %lld bytes\n", (long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Huge pages where the kernel allows them (THP "madvise"): touching 2 GiB a 4 KiB
     * page at a time (the writes read the zero page, the reads fault in the buffer)
     * took about 45 of the test's 50 s in a VM whose first touch of memory is slow. */
    madvise(p, (size_t)bytes, MADV_HUGEPAGE);
    return p;
}

/* The pattern of access `tag` in the first and last pages of a buffer. */
static void stamp(unsigned char *buf, unsigned char tag)
{
    for (int i = 0; i < PAGE; i++) {
        buf[i] = (unsigned char)(tag + i);
        buf[N - PAGE + i] = (unsigned char)(tag * 3 + i);
    }
}

static void check_stamp(const unsigned char *buf, unsigned char tag, const char *what)
{
    int wrong = 0;
    for (int i = 0; i < PAGE; i++)
        wrong += buf[i] != (unsigned char)(tag + i) ||
                 buf[N - PAGE + i] != (unsigned char)(tag * 3 + i);
    /* And a few zero bytes between them, far apart. */
    for (MPI_Count at = PAGE; at < N - PAGE; at += (MPI_Count)1 << 27)
        wrong += buf[at] != 0;
    CHECK(wrong == 0, "%s: %d bytes differ from what was written", what, wrong);
}

static void check_count(MPI_Status *status, MPI_Datatype type, MPI_Count expected,
                        const char *what)
{
    MPI_Count count = -1;
    CHECK_MPI(MPI_Get_count_c(status, type, &count));
    CHECK(count == expected, "%s: status count %lld, expected %lld", what, (long long)count,
          (long long)expected);
}

static void check_shared_position(MPI_File fh, MPI_Offset expected, const char *what)
{
    MPI_Offset at = -1;
    CHECK_MPI(MPI_File_get_position_shared(fh, &at));
    CHECK(at == expected, "%s: shared position %lld, expected %lld", what, (long long)at,
          (long long)expected);
}

int main(int argc, char **argv)
{
    char dir[3000], path[4096];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    snprintf(path, sizeof path, "%s/large_count", dir);
    MPI_File fh;
    MPI_Status status;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    unsigned char *out = map(N), *in = map(N);

    stamp(out, 11);
    CHECK_MPI(MPI_File_seek_shared(fh, BASE, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_write_shared_c(fh, out, N, MPI_BYTE, &status));
    check_count(&status, MPI_BYTE, N, "write_shared_c");
    check_shared_position(fh, BASE + N, "after write_shared_c");
    MPI_Offset size = 0;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == BASE + N, "file size %lld, expected %lld", (long long)size,
          (long long)(BASE + N));
    CHECK_MPI(MPI_File_read_at_c(fh, BASE, in, N, MPI_BYTE, &status));
    check_count(&status, MPI_BYTE, N, "read_at_c");
    check_stamp(in, 11, "write_shared_c, read_at_c");

    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    stamp(out, 77);
    memset(in, 0xee, PAGE);
    CHECK_MPI(MPI_File_write_at(fh, BASE, out, (int)(N / 4), MPI_INT, &status));
    check_count(&status, MPI_INT, N / 4, "atomic write_at");
    CHECK_MPI(MPI_File_seek_shared(fh, BASE, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_shared(fh, in, (int)(N / 4), MPI_INT, &status));
    check_count(&status, MPI_INT, N / 4, "atomic read_shared");
    check_stamp(in, 77, "atomic write_at, read_shared");
    check_shared_position(fh, BASE + N, "after read_shared");

    CHECK_ERROR_CLASS(MPI_File_write_at_c(fh, 0, out, -1, MPI_BYTE, &status), MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_write_shared_c(fh, out, -1, MPI_BYTE, &status), MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_read_c(fh, in, -1, MPI_BYTE, &status), MPI_ERR_COUNT);
    check_shared_position(fh, BASE + N, "after the refused calls");

    CHECK_MPI(MPI_File_close(&fh));
    munmap(out, (size_t)N);
    munmap(in, (size_t)N);
    return testlib_finish_and_finalize();
}
