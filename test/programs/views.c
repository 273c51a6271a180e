/*
 * views DIR - shared-pointer positions follow MPI-IO's rules: they count etypes of
 * the current view (holes, displacements, any memory datatype), MPI_File_set_view
 * resets the pointer, count 0 is a no-op, MPI_MODE_APPEND starts at the end, and
 * MPI_File_seek_shared handles SET/CUR/END. File bytes are checked one by one.
 */
#include "testlib.h"

#include <string.h>

static char dir[3000];
static int rank, size;

static void path_of(char *out, const char *name) { snprintf(out, 4096, "%s/%s", dir, name); }

static MPI_Offset shared_position(MPI_File fh)
{
    MPI_Offset at = -1;
    CHECK_MPI(MPI_File_get_position_shared(fh, &at));
    return at;
}

/* Rank 0 writes `bytes` bytes of `fill` at the start of path (default view). */
static void prefill(const char *path, int bytes, unsigned char fill)
{
    if (rank == 0) {
        MPI_File fh;
        unsigned char *buf = malloc((size_t)bytes);
        memset(buf, fill, (size_t)bytes);
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_set_size(fh, bytes));
        CHECK_MPI(MPI_File_write_at(fh, 0, buf, bytes, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_close(&fh));
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 reads the whole file with a fresh handle and the default view. */
static unsigned char *read_back(const char *path, MPI_Offset *length)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_File_get_size(fh, length);
    unsigned char *data = malloc((size_t)*length + 1);
    CHECK_MPI(MPI_File_read_at(fh, 0, data, (int)*length, MPI_BYTE, MPI_STATUS_IGNORE));
    data[*length] = '\0'; /* the append check parses it as text */
    CHECK_MPI(MPI_File_close(&fh));
    return data;
}

/* The view used below: after DISP bytes, blocks of 2 ints followed by a 1-int hole. */
#define DISP 100
static MPI_Datatype holey_filetype(void)
{
    MPI_Datatype two_ints, holey;
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_create_resized(two_ints, 0, 3 * sizeof(int), &holey);
    MPI_Type_commit(&holey);
    MPI_Type_free(&two_ints);
    return holey;
}
static MPI_Offset byte_of_etype(MPI_Offset k) { return DISP + (k / 2) * 12 + (k % 2) * 4; }

static void test_holey_view(void)
{
    enum { CALLS = 5, PER_CALL = 3 };
    char path[4096];
    path_of(path, "holey");
    const int total = size * CALLS * PER_CALL;
    prefill(path, (int)byte_of_etype(total) + 16, 0xEE);

    MPI_File fh;
    MPI_Datatype filetype = holey_filetype();
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, DISP, MPI_INT, filetype, "native", MPI_INFO_NULL));
    for (int call = 0; call < CALLS; call++) {
        int values[PER_CALL];
        for (int j = 0; j < PER_CALL; j++)
            values[j] = (rank << 16) | (call << 8) | j;
        MPI_Status status;
        int count = -1;
        CHECK_MPI(MPI_File_write_shared(fh, values, PER_CALL, MPI_INT, &status));
        MPI_Get_count(&status, MPI_INT, &count);
        CHECK(count == PER_CALL, "write_shared wrote %d ints", count);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(shared_position(fh) == total, "position %lld, expected %d etypes",
          (long long)shared_position(fh), total);

    /* set_view resets the shared pointer to zero on every process. */
    CHECK_MPI(MPI_File_set_view(fh, DISP, MPI_INT, filetype, "native", MPI_INFO_NULL));
    CHECK(shared_position(fh) == 0, "set_view left the pointer at %lld",
          (long long)shared_position(fh));

    /* SEEK_END counts etypes of the view: the first etype at or past the end. */
    MPI_Offset length = 0;
    MPI_File_get_size(fh, &length);
    MPI_Offset end = 0;
    while (byte_of_etype(end) < length)
        end++;
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    CHECK(shared_position(fh) == end, "SEEK_END gave %lld, expected %lld",
          (long long)shared_position(fh), (long long)end);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&filetype);

    if (rank == 0) {
        unsigned char *data = read_back(path, &length);
        int *seen = calloc((size_t)size * CALLS, sizeof(int));
        for (int k = 0; k < total; k += PER_CALL) {
            /* each call's ints are consecutive etypes: (rank, call, 0..2) */
            int first;
            memcpy(&first, data + byte_of_etype(k), sizeof first);
            int r = first >> 16, c = (first >> 8) & 0xFF;
            CHECK(r < size && c < CALLS && (first & 0xFF) == 0, "etype %d holds %#x", k, first);
            if (r >= size || c >= CALLS)
                continue;
            seen[r * CALLS + c]++;
            for (int j = 1; j < PER_CALL; j++) {
                int v;
                memcpy(&v, data + byte_of_etype(k + j), sizeof v);
                CHECK(v == ((r << 16) | (c << 8) | j), "etype %d holds %#x", k + j, v);
            }
        }
        for (int i = 0; i < size * CALLS; i++)
            CHECK(seen[i] == 1, "call %d of rank %d written %d times", i % CALLS, i / CALLS, seen[i]);
        /* The holes and the displacement keep their old bytes. */
        for (MPI_Offset b = 0; b < length; b++) {
            MPI_Offset rel = b - DISP;
            int in_data = b >= DISP && b < byte_of_etype(total) && rel % 12 < 8;
            if (!in_data)
                CHECK(data[b] == 0xEE, "byte %lld outside the written etypes changed", (long long)b);
        }
        free(seen);
        free(data);
    }
}

static void test_count_zero_and_memory_types(void)
{
    char path[4096];
    path_of(path, "zero");
    MPI_File fh;
    MPI_Status status;
    int count = -1, values[8];
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_shared(fh, values, 0, MPI_INT, &status));
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK(count == 0, "count 0 wrote %d", count);
    CHECK_MPI(MPI_File_write_ordered(fh, values, 0, MPI_INT, &status));
    CHECK_MPI(MPI_File_read_shared(fh, values, 0, MPI_INT, &status));
    CHECK(shared_position(fh) == 0, "count 0 moved the pointer to %lld",
          (long long)shared_position(fh));

    /* A noncontiguous memory datatype: every other int of values[]. */
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < 8; i++)
        values[i] = i % 2 ? -1 : rank * 100 + i / 2;
    CHECK_MPI(MPI_File_write_ordered(fh, values, 1, every_other, &status));
    CHECK(shared_position(fh) == 4 * size, "position %lld after one 4-int type per rank",
          (long long)shared_position(fh));
    MPI_Type_free(&every_other);

    /* Read back in rank order with the split collective. */
    int got[4] = {0};
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_ordered_begin(fh, got, 4, MPI_INT));
    CHECK_MPI(MPI_File_read_ordered_end(fh, got, &status));
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == rank * 100 + i, "read_ordered got %d at %d", got[i], i);
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_append_and_seek(void)
{
    char path[4096];
    path_of(path, "append");
    prefill(path, 1000, 'x');
    MPI_File fh;
    int amode = 0;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND,
                            MPI_INFO_NULL, &fh));
    MPI_Offset individual = -1;
    MPI_File_get_position(fh, &individual);
    CHECK(shared_position(fh) == 1000, "MPI_MODE_APPEND: shared pointer at %lld",
          (long long)shared_position(fh));
    CHECK(individual == 1000, "MPI_MODE_APPEND: individual pointer at %lld", (long long)individual);
    CHECK_MPI(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_WRONLY | MPI_MODE_APPEND), "get_amode returned %#x", amode);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone has looked before anyone writes */

    char line[11];
    snprintf(line, sizeof line, "rank%05d\n", rank);
    CHECK_MPI(MPI_File_write_shared(fh, line, 10, MPI_CHAR, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_seek_shared(fh, 7, MPI_SEEK_SET));
    CHECK(shared_position(fh) == 7, "SEEK_SET 7 gave %lld", (long long)shared_position(fh));
    CHECK_MPI(MPI_File_seek_shared(fh, 3, MPI_SEEK_CUR));
    CHECK(shared_position(fh) == 10, "SEEK_CUR +3 gave %lld", (long long)shared_position(fh));
    CHECK_MPI(MPI_File_seek_shared(fh, -10, MPI_SEEK_END));
    CHECK(shared_position(fh) == 1000 + 10 * size - 10, "SEEK_END -10 gave %lld",
          (long long)shared_position(fh));
    CHECK_MPI(MPI_File_close(&fh));

    if (rank == 0) {
        MPI_Offset length = 0;
        unsigned char *data = read_back(path, &length);
        CHECK(length == 1000 + 10 * size, "appended file is %lld bytes", (long long)length);
        int *seen = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < 1000 && i < length; i++)
            CHECK(data[i] == 'x', "append overwrote byte %d", i);
        for (MPI_Offset at = 1000; at + 10 <= length; at += 10) {
            int r = -1;
            if (sscanf((char *)data + at, "rank%05d\n", &r) == 1 && r >= 0 && r < size)
                seen[r]++;
            else
                CHECK(0, "no appended line at %lld", (long long)at);
        }
        for (int r = 0; r < size; r++)
            CHECK(seen[r] == 1, "rank %d appended %d lines", r, seen[r]);
        free(seen);
        free(data);
    }
}

static void test_nonblocking(void)
{
    char path[4096];
    path_of(path, "nonblocking");
    MPI_File fh;
    MPI_Request request;
    MPI_Status status;
    int count = -1;
    long long mine = 0x1000 + rank, got = -1;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_iwrite_shared(fh, &mine, 1, MPI_LONG_LONG, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    MPI_Get_count(&status, MPI_LONG_LONG, &count);
    CHECK(count == 1, "iwrite_shared completed %d items", count);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_iread_shared(fh, &got, 1, MPI_LONG_LONG, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    CHECK(got >= 0x1000 && got < 0x1000 + size, "iread_shared got %#llx", got);
    /* Every value is read by exactly one process. */
    long long *all = malloc(sizeof(long long) * (size_t)size);
    MPI_Allgather(&got, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        int times = 0;
        for (int i = 0; i < size; i++)
            times += all[i] == 0x1000 + r;
        CHECK(times == 1, "value of rank %d read %d times", r, times);
    }
    free(all);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_holey_view();
    test_count_zero_and_memory_types();
    test_append_and_seek();
    test_nonblocking();
    return testlib_finish_and_finalize();
}
