/*
 * records - writes or reads self-describing records (record.h) through the shared
 * file pointer; records_check verifies the result.
 *
 *   records FILE write_shared|iwrite_shared|write_ordered|write_ordered_split N SEED
 *       every rank writes records (rank, 0..N-1) of random length; iwrite_shared
 *       keeps up to 8 requests in flight.
 *   records FILE write_mixed N SEED
 *       the same, each record through the next of: write_shared, write_ordered, the
 *       split write_ordered_begin/end, iwrite_shared, each in its int form and (where
 *       the MPI library has them, MPI-4) its large-count _c form, in turn. Every rank
 *       takes them in the same order, so the collective ones line up.
 *   records FILE read_shared|read_ordered CHUNK
 *       every rank reads CHUNK-byte pieces until it reads nothing, and saves them,
 *       in the order it read them, to FILE.rank<r>.chunks as (u32 length, bytes).
 */
#include "record.h"
#include "testlib.h"

#include <string.h>

#define IN_FLIGHT 8

/* One record of write_mixed; returns 1 when it left a request in *request. */
static int write_mixed(MPI_File fh, int seq, const void *buf, int len, MPI_Request *request,
                       MPI_Status *status)
{
#if MPI_VERSION >= 4
    const int forms = 2;
#else
    const int forms = 1;
#endif
    const int kind = seq % 4, large = (seq / 4) % forms;
    if (!large) {
        switch (kind) {
        case 0: CHECK_MPI(MPI_File_write_shared(fh, buf, len, MPI_BYTE, status)); return 0;
        case 1: CHECK_MPI(MPI_File_write_ordered(fh, buf, len, MPI_BYTE, status)); return 0;
        case 2:
            CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, len, MPI_BYTE));
            CHECK_MPI(MPI_File_write_ordered_end(fh, buf, status));
            return 0;
        default: CHECK_MPI(MPI_File_iwrite_shared(fh, buf, len, MPI_BYTE, request)); return 1;
        }
    }
#if MPI_VERSION >= 4
    const MPI_Count count = len;
    switch (kind) {
    case 0: CHECK_MPI(MPI_File_write_shared_c(fh, buf, count, MPI_BYTE, status)); return 0;
    case 1: CHECK_MPI(MPI_File_write_ordered_c(fh, buf, count, MPI_BYTE, status)); return 0;
    case 2:
        CHECK_MPI(MPI_File_write_ordered_begin_c(fh, buf, count, MPI_BYTE));
        CHECK_MPI(MPI_File_write_ordered_end(fh, buf, status));
        return 0;
    default: CHECK_MPI(MPI_File_iwrite_shared_c(fh, buf, count, MPI_BYTE, request)); return 1;
    }
#endif
    return 0;
}

static void write_records(MPI_File fh, const char *mode, int rank, int n, uint64_t seed)
{
    static unsigned char buffers[IN_FLIGHT][RECORD_HEADER + RECORD_MAX_PAYLOAD];
    MPI_Request requests[IN_FLIGHT];
    for (int i = 0; i < IN_FLIGHT; i++)
        requests[i] = MPI_REQUEST_NULL;

    for (int seq = 0; seq < n; seq++) {
        int slot = seq % IN_FLIGHT;
        if (requests[slot] != MPI_REQUEST_NULL)
            CHECK_MPI(MPI_Wait(&requests[slot], MPI_STATUS_IGNORE));
        unsigned char *buf = buffers[slot];
        int len = (int)record_make(buf, (uint32_t)rank, (uint32_t)seq, seed);
        MPI_Status status;
        int count = -1;
        if (strcmp(mode, "write_mixed") == 0) {
            if (write_mixed(fh, seq, buf, len, &requests[slot], &status))
                continue;
        } else if (strcmp(mode, "write_shared") == 0) {
            CHECK_MPI(MPI_File_write_shared(fh, buf, len, MPI_BYTE, &status));
        } else if (strcmp(mode, "iwrite_shared") == 0) {
            CHECK_MPI(MPI_File_iwrite_shared(fh, buf, len, MPI_BYTE, &requests[slot]));
            continue;
        } else if (strcmp(mode, "write_ordered") == 0) {
            CHECK_MPI(MPI_File_write_ordered(fh, buf, len, MPI_BYTE, &status));
        } else {
            CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, len, MPI_BYTE));
            CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &status));
        }
        MPI_Get_count(&status, MPI_BYTE, &count);
        CHECK(count == len, "record %d: wrote %d of %d bytes", seq, count, len);
    }
    for (int i = 0; i < IN_FLIGHT; i++) {
        MPI_Status status;
        int count = -1;
        if (requests[i] == MPI_REQUEST_NULL)
            continue;
        CHECK_MPI(MPI_Wait(&requests[i], &status));
        MPI_Get_count(&status, MPI_BYTE, &count);
        CHECK(count > 0, "iwrite_shared completed with count %d", count);
    }
}

static void read_chunks(MPI_File fh, const char *path, const char *mode, int rank, int chunk)
{
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s.rank%d.chunks", path, rank);
    FILE *out = fopen(out_path, "wb");
    CHECK(out != NULL, "cannot create %s", out_path);
    if (out == NULL)
        return;
    unsigned char *buf = malloc((size_t)chunk);
    const int ordered = strcmp(mode, "read_ordered") == 0;
    for (;;) {
        MPI_Status status;
        int count = 0, any = 0;
        if (ordered)
            CHECK_MPI(MPI_File_read_ordered(fh, buf, chunk, MPI_BYTE, &status));
        else
            CHECK_MPI(MPI_File_read_shared(fh, buf, chunk, MPI_BYTE, &status));
        MPI_Get_count(&status, MPI_BYTE, &count);
        if (ordered) {
            /* collective: stop together, once nobody read anything */
            MPI_Allreduce(&count, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (any == 0)
                break;
        } else if (count == 0) {
            break;
        }
        uint32_t len = (uint32_t)count;
        fwrite(&len, sizeof len, 1, out);
        fwrite(buf, 1, len, out);
    }
    free(buf);
    fclose(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: records FILE MODE N SEED | records FILE read_* CHUNK\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1], *mode = argv[2];
    const int reading = strncmp(mode, "read_", 5) == 0;
    MPI_File fh;
    int amode = reading ? MPI_MODE_RDONLY : MPI_MODE_CREATE | MPI_MODE_WRONLY;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "cannot open %s", path);
    if (rc == MPI_SUCCESS) {
        if (reading)
            read_chunks(fh, path, mode, rank, atoi(argv[3]));
        else if (argc >= 5)
            write_records(fh, mode, rank, atoi(argv[3]), strtoull(argv[4], NULL, 10));
        CHECK_MPI(MPI_File_close(&fh));
    }
    return testlib_finish_and_finalize();
}
