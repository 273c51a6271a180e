/*
 * desync_errors MODE - libdesync's answers to bad input (issue 18: every routine's
 * bad input gets a clear error, never a crash or a hang). MODE:
 *   routines  every routine outside desynch_Run; desynch_Run's bad arguments and bad
 *             hints (each refused with DESYNC_ERR_HINT and a message naming the hint);
 *             inside a job, in the appCompute of block (0, 1, 0): bad addresses,
 *             handles and buffers, a read of a block not yet made, an identical
 *             second write (accepted)
 *   conflict  block (0, 1, 0) written again with other bytes: DESYNC_ERR_CONFLICT
 *             there, DESYNC_ERR_OTHER_RANK on the other ranks
 *   iterator  the chunk iterator gives an address outside its chunk: DESYNC_ERR_APP
 *   nowrite   appCompute of block (0, 1, 0) writes nothing: DESYNC_ERR_APP
 *   mismatch  rank 1 passes another desync_window: DESYNC_ERR_HINT everywhere
 * The job: file 0 of 3 versions and 2 blocks per rank (1-D), block (v, x) made from
 * (v - 1, x). Prints " No Errors" on rank 0 when every answer was the one expected.
 */
#include "desync.h"
#include "desync_line.h"
#include "testlib.h"

#include <string.h>

static const char *mode;
static int nprocs;
static int checked_inside; /* the checks inside the job ran on this rank */

#define EXPECT(call_result, code)                                                             \
    CHECK(desynch_Last_error() == (code), "%s: last error %d (%s), expected %s", #call_result, \
          desynch_Last_error(), desynch_Last_message(), #code)

/* Bad calls inside a running job, from the appCompute of block (0, 1, 0). */
static void check_inside(const blockaddr *self)
{
    int two[2] = {0, 1}, nine[3] = {9, 1, 0}, late[3] = {0, 3, 0}, left[3] = {0, 1, -1}, wide[4] = {0, 1, 0, 0};
    int next[3] = {0, 2, 0}, first[3] = {0, 0, 0};
    blockaddr bad[] = {{2, two}, {3, nine}, {3, late}, {3, left}, {4, wide}, {1, two}, {9, wide}};
    const void *data;
    size_t len;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(desynchBlockRead(&bad[i], &data, &len) == NULL, "read of bad address %zu", i);
        EXPECT(desynchBlockRead, DESYNC_ERR_ADDRESS);
        CHECK(desynchBlockExists(&bad[i]) == 0, "exists of bad address %zu", i);
        EXPECT(desynchBlockExists, DESYNC_ERR_ADDRESS);
    }
    CHECK(desynchBlockRead(NULL, &data, &len) == NULL, "read of NULL");
    EXPECT(desynchBlockRead(NULL), DESYNC_ERR_ARG);
    blockaddr input = {3, first};
    CHECK(desynchBlockRead(&input, NULL, &len) == NULL, "read into NULL");
    EXPECT(desynchBlockRead(bufp NULL), DESYNC_ERR_ARG);
    blockaddr not_made = {3, next};
    CHECK(desynchBlockRead(&not_made, &data, &len) == NULL, "read of a block not made");
    EXPECT(desynchBlockRead(not made), DESYNC_ERR_NOT_MADE);
    CHECK(strstr(desynch_Last_message(), "(0, 2, 0)") != NULL, "message: %s", desynch_Last_message());

    int local = 0;
    CHECK(desynchBlockFree(&local) == DESYNC_ERR_HANDLE, "free of a stack address");
    CHECK(desynchBlockFree(NULL) == DESYNC_ERR_HANDLE, "free of NULL");
    rd_handle h = desynchBlockRead(&input, &data, &len);
    CHECK(h != NULL && len == sizeof(int), "read of the input");
    CHECK(desynchBlockFree(h) == DESYNC_SUCCESS, "free");
    CHECK(desynchBlockFree(h) == DESYNC_ERR_HANDLE, "second free of a handle");

    int result[3] = {0};
    blockaddr found = {3, result};
    CHECK(desynchBlockMostRecent(&input, &found) == 1 && result[1] >= 0 && result[2] == 0, "most recent");
    CHECK(desynchBlockMostRecent(&input, NULL) == 0, "most recent into NULL");
    EXPECT(desynchBlockMostRecent(NULL), DESYNC_ERR_ARG);

    CHECK(desynchBlockWrite(self, &local, sizeof local) == DESYNC_ERR_BUFFER, "write of a stack buffer");
    CHECK(desynchBlockWrite(self, NULL, 0) == DESYNC_ERR_BUFFER, "write of NULL");
    int *small = desynchBlockMake(sizeof(int));
    CHECK(desynchBlockWrite(self, small, 2 * sizeof(int)) == DESYNC_ERR_BUFFER, "write past the buffer");
    CHECK(strstr(desynch_Last_message(), "shorter") != NULL, "message: %s", desynch_Last_message());
    checked_inside = 1;
}

static void compute(const blockaddr *b, const chunkdesc *file)
{
    (void)file;
    int special = b->dims[1] == 1 && b->dims[2] == 0;
    if (special && !strcmp(mode, "routines"))
        check_inside(b);
    if (special && !strcmp(mode, "nowrite"))
        return;
    int *value = desynchBlockMake(sizeof(int));
    *value = b->dims[1] * 1000 + b->dims[2];
    CHECK(desynchBlockWrite(b, value, sizeof(int)) == DESYNC_SUCCESS, "write: %s", desynch_Last_message());
    if (special && (!strcmp(mode, "routines") || !strcmp(mode, "conflict"))) {
        int *again = desynchBlockMake(sizeof(int));
        *again = b->dims[1] * 1000 + b->dims[2] + !strcmp(mode, "conflict");
        int rc = desynchBlockWrite(b, again, sizeof(int));
        CHECK(rc == (!strcmp(mode, "conflict") ? DESYNC_ERR_CONFLICT : DESYNC_SUCCESS), "second write: %d", rc);
    }
}

static const desynch_app app = {line_deps, compute, line_iter_init, line_iter_next, line_iter_done, NULL};

static MPI_Info job(const char *window)
{
    MPI_Info info;
    char files[64];
    snprintf(files, sizeof files, "0:3:%d", 2 * nprocs);
    MPI_Info_create(&info);
    MPI_Info_set(info, "desync_files", files);
    if (window)
        MPI_Info_set(info, "desync_window", window);
    return info;
}

static void check_outside(void)
{
    int dims[3] = {0, 0, 0};
    blockaddr a = {3, dims};
    const void *data;
    size_t len;
    CHECK(desynchBlockMake(8) == NULL, "make outside");
    EXPECT(desynchBlockMake, DESYNC_ERR_NOT_RUNNING);
    CHECK(desynchBlockExists(&a) == 0, "exists outside");
    EXPECT(desynchBlockExists, DESYNC_ERR_NOT_RUNNING);
    CHECK(desynchBlockRead(&a, &data, &len) == NULL, "read outside");
    EXPECT(desynchBlockRead, DESYNC_ERR_NOT_RUNNING);
    CHECK(desynchBlockWrite(&a, dims, 4) == DESYNC_ERR_NOT_RUNNING, "write outside");
    CHECK(desynchBlockMostRecent(&a, &a) == 0, "most recent outside");
    EXPECT(desynchBlockMostRecent, DESYNC_ERR_NOT_RUNNING);
    CHECK(desynchBlockFree(dims) == DESYNC_ERR_NOT_RUNNING, "free outside");
    CHECK(strcmp(desynch_Error_string(DESYNC_ERR_HANDLE), "unknown desync error code") != 0, "error string");
    CHECK(strcmp(desynch_Error_string(-1), "unknown desync error code") == 0, "error string of -1");
}

static void check_run_arguments(void)
{
    MPI_Info info = job(NULL);
    desynch_app partial = app;
    partial.appIterNext = NULL;
    CHECK(desynch_Run(MPI_COMM_WORLD, info, NULL, NULL) == DESYNC_ERR_ARG, "NULL app");
    CHECK(desynch_Run(MPI_COMM_WORLD, info, &partial, NULL) == DESYNC_ERR_ARG, "incomplete app");
    CHECK(desynch_Run(MPI_COMM_NULL, info, &app, NULL) == DESYNC_ERR_ARG, "MPI_COMM_NULL");
    CHECK(desynch_Run(MPI_COMM_WORLD, MPI_INFO_NULL, &app, NULL) == DESYNC_ERR_HINT, "no hints");
    MPI_Info_free(&info);

    char grid[32], weights[32], tiny[32];
    snprintf(grid, sizeof grid, "grid:%d", nprocs + 1);
    snprintf(weights, sizeof weights, "bisect:%s", nprocs == 1 ? "1,1" : "1");
    snprintf(tiny, sizeof tiny, "0:3:%d", nprocs == 1 ? 0 : nprocs - 1);
    const char *hints[][3] = {
        /* key, value, what the message must name */
        {"desync_files", "0:3", "desync_files"},
        {"desync_files", "0:0:4", "desync_files"},
        {"desync_files", "x:3:4", "desync_files"},
        {"desync_files", "0:3:4;0:3:4", "described twice"},
        {"desync_files", "0:3:4x4x4x4x4x4x4", "desync_files"},
        {"desync_files", "0:3:65536x65536", "2^31"},
        {"desync_files", tiny, tiny[4] == '0' ? "desync_files" : "fewer blocks"},
        {"desync_chunks", grid, "desync_chunks"},
        {"desync_chunks", weights, "one weight per process"},
        {"desync_chunks", "bisect:0", "desync_chunks"},
        {"desync_chunks", "spiral", "desync_chunks"},
        {"desync_window", "0", "desync_window"},
        {"desync_window", "1001", "desync_window"},
        {"desync_window", "4x", "desync_window"},
        {"desync_rebalance", "-1", "desync_rebalance"},
        {"desync_balance", "speed", "desync_balance"},
        {"desync_replicate", "-5", "desync_replicate"},
        {"desync_loss_timeout", "-1", "desync_loss_timeout"},
        {"desync_test_stop", "1", "desync_test_stop"},
        {"desync_bogus", "1", "unknown hint desync_bogus"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        info = job(NULL);
        MPI_Info_set(info, hints[i][0], hints[i][1]);
        int rc = desynch_Run(MPI_COMM_WORLD, info, &app, NULL);
        CHECK(rc == DESYNC_ERR_HINT && strstr(desynch_Last_message(), hints[i][2]),
              "%s=%s: code %d, message \"%s\"", hints[i][0], hints[i][1], rc, desynch_Last_message());
        MPI_Info_free(&info);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mode = argc > 1 ? argv[1] : "";
    line_blocks = 2 * nprocs; /* radius 0: block (v, x) from (v - 1, x) */
    line_iterator_overruns = !strcmp(mode, "iterator");
    int rc, expected_here = DESYNC_SUCCESS, owner_of_special = 0;
    if (!strcmp(mode, "routines")) {
        check_outside();
        check_run_arguments();
        MPI_Info info = job(NULL);
        rc = desynch_Run(MPI_COMM_WORLD, info, &app, NULL);
        MPI_Info_free(&info);
        CHECK(rc == DESYNC_SUCCESS, "the job: %d %s", rc, desynch_Last_message());
        int any = 0;
        MPI_Allreduce(&checked_inside, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(any == 1, "the checks inside ran on %d ranks", any);
    } else if (!strcmp(mode, "conflict") || !strcmp(mode, "nowrite") || !strcmp(mode, "iterator") ||
               !strcmp(mode, "mismatch")) {
        MPI_Info info = job(!strcmp(mode, "mismatch") && rank == 1 ? "2" : NULL);
        rc = desynch_Run(MPI_COMM_WORLD, info, &app, NULL);
        MPI_Info_free(&info);
        /* Block (0, 1, 0) is rank 0's under bisection (the first blocks go to rank 0). */
        owner_of_special = rank == 0;
        if (!strcmp(mode, "mismatch"))
            expected_here = DESYNC_ERR_HINT;
        else if (!strcmp(mode, "iterator"))
            expected_here = DESYNC_ERR_APP;
        else
            expected_here = owner_of_special ? (!strcmp(mode, "conflict") ? DESYNC_ERR_CONFLICT : DESYNC_ERR_APP)
                                             : DESYNC_ERR_OTHER_RANK;
        /* An iterator fault is every rank's own, unless another's abort came first. */
        int allowed = rc == expected_here || (!strcmp(mode, "iterator") && rc == DESYNC_ERR_OTHER_RANK);
        CHECK(allowed, "%s: code %d (%s), expected %d", mode, rc, desynch_Last_message(), expected_here);
        CHECK(*desynch_Last_message(), "no message with code %d", rc);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: desync_errors routines|conflict|iterator|nowrite|mismatch\n");
        MPI_Finalize();
        return 2;
    }
    return testlib_finish_and_finalize();
}
