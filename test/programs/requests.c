/*
 * requests DIR [--atomic] - requests that piox completes (generalized requests: in
 * atomic mode, and for independent writes on a lockless file system) mixed with the
 * MPI library's own (a send and a receive to self, I/O on a file piox leaves to the
 * library), completed through MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany,
 * MPI_Testsome and MPI_Request_get_status, with MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE too. Every completion must return MPI_SUCCESS; every status
 * must carry the right count, must not be cancelled, and its MPI_ERROR field must be
 * MPI_SUCCESS or left as it was (MPI sets it only with MPI_ERR_IN_STATUS). The bytes
 * read and written are checked. Each rank works on its own files:
 * DIR/requests.<rank> (piox's, opened with the --atomic flag's atomicity) and
 * DIR/requests.<rank>.library (hint piox_atomic=off, piox_sfp=off: the library's).
 */
#include "testlib.h"

#include <string.h>

/* GCC takes MPICH's MPI_STATUSES_IGNORE, ((MPI_Status *)1), for a buffer of size 0. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define BLOCK 1000 /* ints per access */
#define SLOTS 5    /* file write, file read, send, receive, library file write */
#define UNTOUCHED 0x5a5a

static int rank, atomic;
static int out[SLOTS][BLOCK], in[SLOTS][BLOCK];
static MPI_File piox_file, library_file;
static int round_number;

static void fill(int *buf, int salt)
{
    for (int i = 0; i < BLOCK; i++)
        buf[i] = salt * 100003 + i;
}

static void check_filled(const int *buf, int salt, const char *what)
{
    int wrong = 0;
    for (int i = 0; i < BLOCK; i++)
        wrong += buf[i] != salt * 100003 + i;
    CHECK(wrong == 0, "%s: %d of %d ints differ (round %d)", what, wrong, BLOCK, round_number);
}

static const char *kinds[SLOTS] = {"piox write", "file read", "send", "receive",
                                   "library write"};

/* Open MPI's own file requests (OMPIO's) come back with the cancelled flag and
 * MPI_ERROR unset, piox or not: for those only the count is checked there. */
static int unset_by_the_library(int slot)
{
#ifdef OMPI_MAJOR_VERSION
    return slot == 4 || (!atomic && slot <= 1);
#else
    (void)slot;
    return 0;
#endif
}

/* The status of request `slot` (a send's count is undefined: MPI-3.1 3.7.3). */
static void check_status(const MPI_Status *status, int slot)
{
    const char *what = slot >= 0 && slot < SLOTS ? kinds[slot] : "?";
    int count = -1, cancelled = 1;
    MPI_Get_count(status, MPI_INT, &count);
    MPI_Test_cancelled(status, &cancelled);
    CHECK(count == BLOCK || slot == 2, "%s: count %d, expected %d (round %d)", what, count,
          BLOCK, round_number);
    if (unset_by_the_library(slot))
        return;
    CHECK(!cancelled, "%s: reported cancelled", what);
    CHECK(status->MPI_ERROR == MPI_SUCCESS || status->MPI_ERROR == UNTOUCHED,
          "%s: MPI_ERROR is %d (round %d)", what, status->MPI_ERROR, round_number);
}

/* Starts one of each kind of request; the file read reads what the previous round's
 * write put there (round 0 writes it first). */
static void start(MPI_Request *requests)
{
    const MPI_Offset at = (MPI_Offset)round_number * BLOCK * sizeof(int);
    fill(out[0], round_number * 10 + 1);
    fill(out[2], round_number * 10 + 3);
    fill(out[4], round_number * 10 + 5);
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_File_iwrite_at(piox_file, at + BLOCK * sizeof(int), out[0], BLOCK, MPI_INT,
                                 &requests[0]));
    CHECK_MPI(MPI_File_iread_at(piox_file, at, in[1], BLOCK, MPI_INT, &requests[1]));
    CHECK_MPI(MPI_Isend(out[2], BLOCK, MPI_INT, 0, round_number, MPI_COMM_SELF, &requests[2]));
    CHECK_MPI(MPI_Irecv(in[3], BLOCK, MPI_INT, 0, round_number, MPI_COMM_SELF, &requests[3]));
    CHECK_MPI(MPI_File_iwrite_at(library_file, at, out[4], BLOCK, MPI_INT, &requests[4]));
}

/* What each request must have done, once complete. */
static void check_data(void)
{
    check_filled(in[1], round_number * 10 - 9, "file read");  /* last round's write */
    check_filled(in[3], round_number * 10 + 3, "receive");
}

static void prepare_statuses(MPI_Status *statuses, int n)
{
    for (int i = 0; i < n; i++) {
        memset(&statuses[i], 0, sizeof statuses[i]);
        statuses[i].MPI_ERROR = UNTOUCHED;
    }
}

static void run_round(int method)
{
    MPI_Request requests[SLOTS + 1];
    MPI_Status statuses[SLOTS + 1];
    int done = 0, index = -1, flag = 0, outcount = 0, indices[SLOTS + 1];
    start(requests);
    requests[SLOTS] = MPI_REQUEST_NULL; /* a null request among them */
    prepare_statuses(statuses, SLOTS + 1);
    switch (method) {
    case 0: /* MPI_Wait, one by one, with a status */
        for (int i = 0; i < SLOTS; i++) {
            CHECK_MPI(MPI_Wait(&requests[i], &statuses[i]));
            check_status(&statuses[i], i);
        }
        break;
    case 1: /* MPI_Waitall with statuses */
        CHECK_MPI(MPI_Waitall(SLOTS + 1, requests, statuses));
        for (int i = 0; i < SLOTS; i++)
            check_status(&statuses[i], i);
        break;
    case 2: /* MPI_Waitall, MPI_STATUSES_IGNORE */
        CHECK_MPI(MPI_Waitall(SLOTS + 1, requests, MPI_STATUSES_IGNORE));
        break;
    case 3: /* MPI_Waitany until none is left */
        while (1) {
            MPI_Status status;
            prepare_statuses(&status, 1);
            CHECK_MPI(MPI_Waitany(SLOTS + 1, requests, &index, &status));
            if (index == MPI_UNDEFINED)
                break;
            CHECK(index >= 0 && index < SLOTS, "MPI_Waitany index %d", index);
            check_status(&status, index);
            done++;
        }
        CHECK(done == SLOTS, "MPI_Waitany completed %d of %d", done, SLOTS);
        break;
    case 4: /* MPI_Testsome until none is left */
        while (1) {
            CHECK_MPI(MPI_Testsome(SLOTS + 1, requests, &outcount, indices, statuses));
            if (outcount == MPI_UNDEFINED)
                break;
            for (int i = 0; i < outcount; i++)
                check_status(&statuses[i], indices[i]);
            done += outcount;
            prepare_statuses(statuses, SLOTS + 1);
        }
        CHECK(done == SLOTS, "MPI_Testsome completed %d of %d", done, SLOTS);
        break;
    case 5: /* MPI_Request_get_status, which leaves the request, then MPI_Wait. In atomic
             * mode the file accesses are piox's: complete at the first look. (MPICH
             * 4.0.2's get_status never progresses ROMIO's own nonblocking I/O, with or
             * without piox: those are waited for.) */
        for (int i = 0; i < SLOTS; i++) {
            int looks = 0;
            for (flag = 0; !flag && looks < 100000; looks++)
                CHECK_MPI(MPI_Request_get_status(requests[i], &flag, &statuses[i]));
            CHECK(!atomic || i > 1 || looks == 1, "%s: complete after %d looks", kinds[i],
                  looks);
            if (flag)
                check_status(&statuses[i], i);
            CHECK(requests[i] != MPI_REQUEST_NULL, "get_status freed the request");
            prepare_statuses(&statuses[i], 1);
            CHECK_MPI(MPI_Wait(&requests[i], &statuses[i]));
            check_status(&statuses[i], i);
        }
        break;
    default: /* MPI_Test one by one, MPI_STATUS_IGNORE. (Not MPI_Testall: MPICH 4.0.2's
              * asserts on ROMIO's own file requests that it found incomplete before,
              * with or without piox.) */
        for (int i = 0; i < SLOTS + 1; i++)
            for (flag = 0; !flag;)
                CHECK_MPI(MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < SLOTS + 1; i++)
        CHECK(requests[i] == MPI_REQUEST_NULL, "request %d not freed (method %d)", i, method);
    check_data();
}

static MPI_File open_file(const char *dir, const char *suffix, MPI_Info info)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/requests.%d%s", dir, rank, suffix);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    return fh;
}

int main(int argc, char **argv)
{
    char dir[3000];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    atomic = argc > 2 && strcmp(argv[2], "--atomic") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info library_only;
    MPI_Info_create(&library_only);
    MPI_Info_set(library_only, "piox_atomic", "off");
    MPI_Info_set(library_only, "piox_sfp", "off");
    piox_file = open_file(dir, "", MPI_INFO_NULL);
    library_file = open_file(dir, ".library", library_only);
    MPI_Info_free(&library_only);
    CHECK_MPI(MPI_File_set_atomicity(piox_file, atomic));
    /* Round 0's read finds the block a write put there first. */
    fill(out[0], -9);
    CHECK_MPI(MPI_File_write_at(piox_file, 0, out[0], BLOCK, MPI_INT, MPI_STATUS_IGNORE));
    const int methods = 7;
    for (round_number = 0; round_number < 3 * methods; round_number++)
        run_round(round_number % methods);
    CHECK_MPI(MPI_File_close(&piox_file));
    CHECK_MPI(MPI_File_close(&library_file));
    return testlib_finish_and_finalize();
}
