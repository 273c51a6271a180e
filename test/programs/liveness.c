/*
 * liveness FILE CALLS [SLEEP_LIMIT] - shows that shared-mode accesses never wait for
 * the process hosting the shared pointer.
 *
 * After opening FILE, rank 0 (the host) sleeps outside MPI while every other rank
 * makes CALLS write_shared calls (the host makes its own after waking). It sleeps
 * until every writer has left a marker file FILE.done.<rank> beside FILE, or for
 * SLEEP_LIMIT seconds at most (default 30): writers that need the host cannot finish before
 * it wakes, however fast the machine, and writers that do not need it are never
 * counted as waiting because the machine is slow. Each rank notes, on the node's
 * monotonic clock, when it finished; rank 0 notes when it woke. Rank 0 prints
 *   host_woke=<s> last_writer_done=<s> writers_waited=<0|1>
 * writers_waited=1 means some writer finished only after the host woke up.
 * The file's records are checked by the caller (records_check), so every call is a
 * real record from record.h.
 */
#include "record.h"
#include "testlib.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SLEEP_LIMIT 30.0

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void marker_name(char *name, size_t n, const char *file, int rank)
{
    snprintf(name, n, "%s.done.%d", file, rank);
}

/* The host's sleep: until every writer's marker exists, or `limit` seconds. */
static void sleep_until_writers_done(const char *file, int size, double limit)
{
    const double start = now();
    char name[4096];
    for (int rank = 1; rank < size && now() - start < limit;) {
        marker_name(name, sizeof name, file, rank);
        if (access(name, F_OK) == 0)
            rank++;
        else
            usleep(10000);
    }
    for (int rank = 1; rank < size; rank++) {
        marker_name(name, sizeof name, file, rank);
        unlink(name);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        MPI_Finalize();
        return 2;
    }
    const int calls = atoi(argv[2]);
    const double limit = argc > 3 ? atof(argv[3]) : DEFAULT_SLEEP_LIMIT;
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh));
    MPI_Barrier(MPI_COMM_WORLD);

    double done = 0;
    if (rank == 0) {
        /* outside MPI: the host makes no MPI progress meanwhile */
        sleep_until_writers_done(argv[1], size, limit);
        done = now();
    }
    /* The host writes its records too, after waking, so the file is complete. */
    static unsigned char buf[RECORD_HEADER + RECORD_MAX_PAYLOAD];
    for (int seq = 0; seq < calls; seq++) {
        int len = (int)record_make(buf, (uint32_t)rank, (uint32_t)seq, 7);
        CHECK_MPI(MPI_File_write_shared(fh, buf, len, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    if (rank != 0) {
        done = now();
        char name[4096];
        marker_name(name, sizeof name, argv[1], rank);
        FILE *marker = fopen(name, "w");
        CHECK(marker != NULL, "cannot create %s", name);
        if (marker != NULL)
            fclose(marker);
    }
    double last_writer = 0, host_woke = 0, writer_done = rank == 0 ? 0 : done;
    MPI_Reduce(&writer_done, &last_writer, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    host_woke = done;
    if (rank == 0)
        printf("host_woke=%.6f last_writer_done=%.6f writers_waited=%d\n", host_woke, last_writer,
               size > 1 && last_writer >= host_woke);
    CHECK_MPI(MPI_File_close(&fh));
    return testlib_finish_and_finalize();
}
