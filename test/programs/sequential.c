/*
 * sequential DIR [--data-only] - files opened with MPI_MODE_SEQUENTIAL, the
 * "sequential stream files" of MPI-3.1 13.6: every shared and ordered routine works
 * on them, and the routines the standard forbids there are refused.
 *
 * Write phase (DIR/sequential, MPI_MODE_SEQUENTIAL | MPI_MODE_WRONLY | CREATE): each
 * rank writes ROUNDS records of 32 bytes through each writing routine in turn:
 * write_shared, iwrite_shared, write_ordered and write_ordered_begin/end, each in its
 * int form and (MPI-4 libraries) its large-count _c form. Halfway, set_view with
 * MPI_DISPLACEMENT_CURRENT makes the shared pointer's byte position the view's
 * displacement, with a 32-byte record as etype and filetype; get_view must report
 * it, and the shared pointer restarts at 0 there.
 * Read phase (MPI_MODE_SEQUENTIAL | MPI_MODE_RDONLY): the records are read back with
 * the reading routines in turn (read_shared, iread_shared, read_ordered,
 * read_ordered_begin/end, int and _c), and rank 0 checks that every record written
 * was read exactly once and that the file holds nothing else.
 * Refusals (unless --data-only, for libraries that do not follow the standard
 * there): explicit offsets, individual pointers, seek and get_position of either
 * pointer, set_size and preallocate give MPI_ERR_UNSUPPORTED_OPERATION; set_view
 * with a displacement other than MPI_DISPLACEMENT_CURRENT gives MPI_ERR_ARG and a
 * filetype with holes MPI_ERR_TYPE; MPI_File_get_byte_offset is allowed (13.4.3).
 */
#include "testlib.h"

#include <stdint.h>
#include <string.h>

#define RECORD 32
#define ROUNDS 6
#if MPI_VERSION >= 4
#define FORMS 2
#else
#define FORMS 1
#endif
#define ROUTINES 4 /* writing (or reading) routines, in each form */

typedef struct {
    int32_t rank, seq, routine, check;
    char text[16];
} record_t;

static int rank, size;
static char path[4096];

static void make_record(record_t *r, int seq, int routine)
{
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->seq = seq;
    r->routine = routine;
    r->check = rank * 7919 + seq * 31 + routine;
    snprintf(r->text, sizeof r->text, "r%d s%d", rank, seq);
}

/* Writes one record through routine number `routine` (ROUTINES x FORMS of them). */
static void write_one(MPI_File fh, record_t *r, MPI_Datatype type, int count)
{
    MPI_Status status;
    MPI_Request request;
    const int which = r->routine % ROUTINES, large = r->routine / ROUTINES;
    if (!large) {
        switch (which) {
        case 0: CHECK_MPI(MPI_File_write_shared(fh, r, count, type, &status)); break;
        case 1:
            CHECK_MPI(MPI_File_iwrite_shared(fh, r, count, type, &request));
            CHECK_MPI(MPI_Wait(&request, &status));
            break;
        case 2: CHECK_MPI(MPI_File_write_ordered(fh, r, count, type, &status)); break;
        default:
            CHECK_MPI(MPI_File_write_ordered_begin(fh, r, count, type));
            CHECK_MPI(MPI_File_write_ordered_end(fh, r, &status));
        }
    }
#if MPI_VERSION >= 4
    else {
        const MPI_Count n = count;
        switch (which) {
        case 0: CHECK_MPI(MPI_File_write_shared_c(fh, r, n, type, &status)); break;
        case 1:
            CHECK_MPI(MPI_File_iwrite_shared_c(fh, r, n, type, &request));
            CHECK_MPI(MPI_Wait(&request, &status));
            break;
        case 2: CHECK_MPI(MPI_File_write_ordered_c(fh, r, n, type, &status)); break;
        default:
            CHECK_MPI(MPI_File_write_ordered_begin_c(fh, r, n, type));
            CHECK_MPI(MPI_File_write_ordered_end(fh, r, &status));
        }
    }
#endif
    int bytes = -1;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    CHECK(bytes == RECORD, "routine %d wrote %d bytes", r->routine, bytes);
}

/* Reads one record through reading routine `routine`; returns the bytes read. */
static int read_one(MPI_File fh, record_t *r, int routine)
{
    MPI_Status status;
    MPI_Request request;
    const int which = routine % ROUTINES, large = routine / ROUTINES;
    memset(r, 0, sizeof *r);
    if (!large) {
        switch (which) {
        case 0: CHECK_MPI(MPI_File_read_shared(fh, r, RECORD, MPI_BYTE, &status)); break;
        case 1:
            CHECK_MPI(MPI_File_iread_shared(fh, r, RECORD, MPI_BYTE, &request));
            CHECK_MPI(MPI_Wait(&request, &status));
            break;
        case 2: CHECK_MPI(MPI_File_read_ordered(fh, r, RECORD, MPI_BYTE, &status)); break;
        default:
            CHECK_MPI(MPI_File_read_ordered_begin(fh, r, RECORD, MPI_BYTE));
            CHECK_MPI(MPI_File_read_ordered_end(fh, r, &status));
        }
    }
#if MPI_VERSION >= 4
    else {
        switch (which) {
        case 0: CHECK_MPI(MPI_File_read_shared_c(fh, r, RECORD, MPI_BYTE, &status)); break;
        case 1:
            CHECK_MPI(MPI_File_iread_shared_c(fh, r, RECORD, MPI_BYTE, &request));
            CHECK_MPI(MPI_Wait(&request, &status));
            break;
        case 2: CHECK_MPI(MPI_File_read_ordered_c(fh, r, RECORD, MPI_BYTE, &status)); break;
        default:
            CHECK_MPI(MPI_File_read_ordered_begin_c(fh, r, RECORD, MPI_BYTE));
            CHECK_MPI(MPI_File_read_ordered_end(fh, r, &status));
        }
    }
#endif
    int bytes = -1;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    return bytes;
}

static void check_refusals(MPI_File fh)
{
    char buf[RECORD] = {0};
    MPI_Offset at = 0;
    MPI_Datatype holes;
    const int U = MPI_ERR_UNSUPPORTED_OPERATION;
    CHECK_ERROR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE), U);
    CHECK_ERROR_CLASS(MPI_File_write(fh, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE), U);
    CHECK_ERROR_CLASS(MPI_File_write_at_all(fh, 0, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE), U);
    CHECK_ERROR_CLASS(MPI_File_write_all_begin(fh, buf, 1, MPI_BYTE), U);
    CHECK_ERROR_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), U);
    CHECK_ERROR_CLASS(MPI_File_get_position(fh, &at), U);
    CHECK_ERROR_CLASS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), U);
    CHECK_ERROR_CLASS(MPI_File_get_position_shared(fh, &at), U);
    CHECK_ERROR_CLASS(MPI_File_set_size(fh, 0), U);
    CHECK_ERROR_CLASS(MPI_File_preallocate(fh, 1 << 20), U);
#if MPI_VERSION >= 4
    CHECK_ERROR_CLASS(MPI_File_iwrite_at_c(fh, 0, buf, 1, MPI_BYTE, &(MPI_Request){0}), U);
#endif
    CHECK_MPI(MPI_File_get_byte_offset(fh, 1, &at));
    CHECK(at == 1, "get_byte_offset(1) = %lld in the byte view", (long long)at);
    CHECK_ERROR_CLASS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
                      MPI_ERR_ARG);
    MPI_Type_create_resized(MPI_BYTE, 0, 2, &holes);
    MPI_Type_commit(&holes);
    CHECK_ERROR_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_BYTE, holes, "native",
                                        MPI_INFO_NULL),
                      MPI_ERR_TYPE);
    MPI_Type_free(&holes);
}

static void write_phase(int data_only)
{
    MPI_File fh;
    MPI_Datatype record_type;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
                            MPI_MODE_SEQUENTIAL | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh));
    int amode = 0;
    CHECK_MPI(MPI_File_get_amode(fh, &amode));
    CHECK(amode & MPI_MODE_SEQUENTIAL, "get_amode lost MPI_MODE_SEQUENTIAL: %#x", amode);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    if (!data_only)
        check_refusals(fh);
    MPI_Type_contiguous(RECORD, MPI_BYTE, &record_type);
    MPI_Type_commit(&record_type);
    record_t r;
    int seq = 0;
    for (int round = 0; round < ROUNDS; round++) {
        if (round == ROUNDS / 2) {
            /* Every record so far is in: the shared pointer is at their end. */
            const MPI_Offset expected = (MPI_Offset)size * RECORD * ROUTINES * FORMS * round;
            CHECK_MPI(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, record_type, record_type,
                                        "native", MPI_INFO_NULL));
            MPI_Offset disp = -1;
            MPI_Datatype etype, filetype;
            char datarep[MPI_MAX_DATAREP_STRING];
            CHECK_MPI(MPI_File_get_view(fh, &disp, &etype, &filetype, datarep));
            CHECK(disp == expected, "MPI_DISPLACEMENT_CURRENT gave %lld, expected %lld",
                  (long long)disp, (long long)expected);
            MPI_Type_free(&etype);
            MPI_Type_free(&filetype);
        }
        for (int routine = 0; routine < ROUTINES * FORMS; routine++) {
            make_record(&r, seq++, routine);
            /* After set_view, one element of the 32-byte etype. */
            if (round >= ROUNDS / 2)
                write_one(fh, &r, record_type, 1);
            else
                write_one(fh, &r, MPI_BYTE, RECORD);
        }
    }
    MPI_Type_free(&record_type);
    CHECK_MPI(MPI_File_close(&fh));
}

static void read_phase(void)
{
    const int per_rank = ROUNDS * ROUTINES * FORMS, total = size * per_rank;
    record_t *mine = calloc((size_t)per_rank + 1, sizeof *mine);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_SEQUENTIAL | MPI_MODE_RDONLY,
                            MPI_INFO_NULL, &fh));
    int got = 0;
    for (int i = 0; i < per_rank; i++) {
        int bytes = read_one(fh, &mine[got], i % (ROUTINES * FORMS));
        CHECK(bytes == RECORD, "read %d: %d bytes", i, bytes);
        got += bytes == RECORD;
    }
    record_t extra;
    CHECK(read_one(fh, &extra, 0) == 0, "the file holds more than the records written");
    CHECK_MPI(MPI_File_close(&fh));

    record_t *all = rank == 0 ? calloc((size_t)total, sizeof *all) : NULL;
    MPI_Gather(mine, per_rank * RECORD, MPI_BYTE, all, per_rank * RECORD, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *seen = calloc((size_t)total, 1);
        for (int i = 0; i < total; i++) {
            const record_t *r = &all[i];
            int ok = r->rank >= 0 && r->rank < size && r->seq >= 0 && r->seq < per_rank &&
                     r->routine == r->seq % (ROUTINES * FORMS) &&
                     r->check == r->rank * 7919 + r->seq * 31 + r->routine;
            CHECK(ok, "record %d read back is not one that was written", i);
            if (ok) {
                CHECK(!seen[r->rank * per_rank + r->seq], "record rank %d seq %d read twice",
                      r->rank, r->seq);
                seen[r->rank * per_rank + r->seq] = 1;
            }
        }
        free(seen);
        free(all);
    }
    free(mine);
}

int main(int argc, char **argv)
{
    char dir[3000];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    const int data_only = argc > 2 && strcmp(argv[2], "--data-only") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/sequential", dir);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    write_phase(data_only);
    read_phase();
    return testlib_finish_and_finalize();
}
