/*
 * lock_service - the byte-range lock of the adio core (piox_lock.h) under load,
 * checked against a sequential model. Linked with the core directly (no
 * preloading).
 *
 *   lock_service KIND random ITERATIONS SEED
 *       Every rank runs a random script of ITERATIONS requests (1-4 extents in a
 *       4 KiB file, a third of them writes) and holds each briefly. Each grant and
 *       each release takes a number from one counter in shared memory while the
 *       request is held, so the numbers order the holding intervals as they
 *       really happened. Rank 0 gathers every event and replays them in that
 *       order through a sequential model of the lock, which fails on any grant
 *       that conflicts with a request still held. Counts are checked too. It
 *       also prints the lock's network round trips per request.
 *
 *   lock_service KIND fairness READS
 *       Ranks 0..N-2 stream READS overlapping read locks on one extent, so that
 *       some reader always holds it; the last rank asks for a write lock on the
 *       same extent once the stream has started (each reader granted twice; the
 *       extent's home, rank 0, stays a reader, so that across nodes it keeps
 *       entering MPI). A fair lock queues later readers
 *       behind the writer: the check is that reads were still being granted after
 *       the writer got in (a reader-preferring lock lets the writer in only when
 *       the stream has dried up).
 *
 *   lock_service KIND uncontended ITERATIONS
 *       The last rank acquires and releases a write lock on bytes 0-99 ITERATIONS
 *       times while the others wait in a barrier, inside MPI (bytes 0-99 are in
 *       shard 0, whose home is rank 0). It prints the network round trips
 *       (piox_lock_round_trips) and the microseconds per acquire plus release.
 *
 * KIND is range or mutex, or none: no lock at all, the control that shows the
 * replay catches conflicting holders. Rank 0 prints " No Errors" when every
 * check passed.
 */
#include "piox_lock.h"
#include "testlib.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define MAX_EXTENTS 4
#define FILE_BYTES 4096

typedef struct {
    int64_t sequence;
    int32_t rank;
    int32_t granted; /* 1 grant, 0 release */
    int32_t mode;
    int32_t count;
    piox_extent extents[MAX_EXTENTS];
} event;

static int64_t *shared_counter;

static int64_t next_sequence(void) { return __atomic_fetch_add(shared_counter, 1, __ATOMIC_SEQ_CST); }

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

static int overlaps(const event *a, const event *b)
{
    for (int i = 0; i < a->count; i++)
        for (int j = 0; j < b->count; j++)
            if (a->extents[i].offset < b->extents[j].offset + b->extents[j].length &&
                b->extents[j].offset < a->extents[i].offset + a->extents[i].length)
                return 1;
    return 0;
}

static int compare_sequence(const void *a, const void *b)
{
    int64_t x = ((const event *)a)->sequence, y = ((const event *)b)->sequence;
    return (x > y) - (x < y);
}

/* Replays the events in sequence order: a grant must not conflict with anything
 * held; a release must follow its own grant. */
static void replay(event *events, int total, int nprocs)
{
    qsort(events, (size_t)total, sizeof(event), compare_sequence);
    event *held = calloc((size_t)nprocs, sizeof(event));
    int *holding = calloc((size_t)nprocs, sizeof(int));
    for (int e = 0; e < total; e++) {
        const event *ev = &events[e];
        CHECK(e == 0 || ev->sequence > events[e - 1].sequence, "sequence %lld repeated",
              (long long)ev->sequence);
        if (!ev->granted) {
            CHECK(holding[ev->rank], "rank %d released at %lld without holding", ev->rank,
                  (long long)ev->sequence);
            holding[ev->rank] = 0;
            continue;
        }
        CHECK(!holding[ev->rank], "rank %d granted twice", ev->rank);
        for (int p = 0; p < nprocs; p++) {
            if (!holding[p])
                continue;
            int both_read = held[p].mode == PIOX_LOCK_READ && ev->mode == PIOX_LOCK_READ;
            CHECK(both_read || !overlaps(&held[p], ev),
                  "event %lld: rank %d granted %s while rank %d holds %s of an overlapping extent",
                  (long long)ev->sequence, ev->rank, ev->mode ? "write" : "read", p,
                  held[p].mode ? "write" : "read");
        }
        held[ev->rank] = *ev;
        holding[ev->rank] = 1;
    }
    for (int p = 0; p < nprocs; p++)
        CHECK(!holding[p], "rank %d still holds at the end", p);
    free(held);
    free(holding);
}

static void random_script(piox_lock *lock, int rank, int nprocs, int iterations, unsigned seed)
{
    event *mine = calloc((size_t)iterations * 2, sizeof(event));
    unsigned state = seed * 7919u + (unsigned)rank * 104729u + 1;
    for (int i = 0; i < iterations; i++) {
        event request = {0};
        request.mode = next_random(&state) % 3 == 0 ? PIOX_LOCK_WRITE : PIOX_LOCK_READ;
        request.count = 1 + (int)(next_random(&state) % MAX_EXTENTS);
        for (int k = 0; k < request.count; k++) {
            request.extents[k].offset = next_random(&state) % FILE_BYTES;
            request.extents[k].length = 1 + next_random(&state) % 256;
        }
        if (lock != NULL)
            CHECK_MPI(piox_lock_acquire(lock, (piox_lock_mode)request.mode, request.extents,
                                        request.count));
        event *grant = &mine[2 * i], *release = &mine[2 * i + 1];
        *grant = request;
        grant->rank = rank;
        grant->granted = 1;
        grant->sequence = next_sequence();
        if (next_random(&state) % 4 == 0)
            usleep(next_random(&state) % 100);
        *release = *grant;
        release->granted = 0;
        release->sequence = next_sequence();
        if (lock != NULL)
            CHECK_MPI(piox_lock_release(lock));
    }
    long long round_trips = 0, all_round_trips = 0;
    if (lock != NULL)
        CHECK_MPI(piox_lock_round_trips(lock, &round_trips));
    MPI_Reduce(&round_trips, &all_round_trips, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    event *all = NULL;
    if (rank == 0)
        all = malloc((size_t)iterations * 2 * (size_t)nprocs * sizeof(event));
    MPI_Gather(mine, iterations * 2 * (int)sizeof(event), MPI_BYTE, all,
               iterations * 2 * (int)sizeof(event), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        replay(all, iterations * 2 * nprocs, nprocs);
        printf("replayed %d grants and releases of %d ranks; network round trips per request: "
               "%.2f\n", iterations * 2 * nprocs, nprocs,
               (double)all_round_trips / ((double)iterations * nprocs));
        free(all);
    }
    free(mine);
}

static void fairness(piox_lock *lock, int rank, int nprocs, int reads)
{
    piox_extent extent = {0, 100};
    int64_t writer_granted = -1, last_read = -1;
    const int writer = nprocs - 1;
    if (rank == writer) {
        /* Let the stream of readers get going (for 10 s at most). */
        for (int waited = 0; waited < 10000 && __atomic_load_n(shared_counter, __ATOMIC_SEQ_CST) <
                                                   2 * (int64_t)(nprocs - 1); waited++)
            usleep(1000);
        CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_WRITE, &extent, 1));
        writer_granted = next_sequence();
        CHECK_MPI(piox_lock_release(lock));
    } else {
        for (int i = 0; i < reads; i++) {
            CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_READ, &extent, 1));
            last_read = next_sequence();
            usleep(200); /* long enough that the readers' holds overlap */
            CHECK_MPI(piox_lock_release(lock));
        }
    }
    int64_t latest_read = -1;
    MPI_Allreduce(&last_read, &latest_read, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Bcast(&writer_granted, 1, MPI_INT64_T, writer, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(writer_granted >= 2 * (nprocs - 1), "the writer got in at %lld, before the stream "
              "of readers had started", (long long)writer_granted);
        CHECK(writer_granted >= 0 && latest_read > writer_granted,
              "the writer got in at %lld, after the last read (%lld): it waited for the stream "
              "of readers to end", (long long)writer_granted, (long long)latest_read);
        printf("writer granted at %lld, reads went on until %lld\n", (long long)writer_granted,
               (long long)latest_read);
    }
}

static void uncontended(piox_lock *lock, int rank, int nprocs, int iterations)
{
    piox_extent extent = {0, 100};
    if (rank == nprocs - 1) {
        long long before = 0, after = 0;
        CHECK_MPI(piox_lock_round_trips(lock, &before));
        const double start = MPI_Wtime();
        for (int i = 0; i < iterations; i++) {
            CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_WRITE, &extent, 1));
            CHECK_MPI(piox_lock_release(lock));
        }
        const double seconds = MPI_Wtime() - start;
        CHECK_MPI(piox_lock_round_trips(lock, &after));
        printf("rank %d: round trips per acquire and release: %.2f; us per acquire and "
               "release: %.2f\n", rank, (double)(after - before) / iterations,
               seconds / iterations * 1e6);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, nprocs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: %s range|mutex|none random ITERATIONS SEED | fairness READS | "
                            "uncontended ITERATIONS\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    piox_lock_kind kind = strcmp(argv[1], "mutex") == 0 ? PIOX_LOCK_MUTEX : PIOX_LOCK_RANGE;

    /* The event counter: real shared memory of the machine, whatever PIOX_HOSTNAME says. */
    testlib_machine_counter counter = testlib_new_machine_counter();
    shared_counter = counter.value;

    piox_lock *lock = NULL;
    int rc = MPI_SUCCESS;
    if (strcmp(argv[1], "none") != 0) {
        rc = piox_lock_create(MPI_COMM_WORLD, kind, &lock);
        CHECK(rc == MPI_SUCCESS, "piox_lock_create(%s) failed: %d", argv[1], rc);
    }
    if (rc == MPI_SUCCESS) {
        if (strcmp(argv[2], "fairness") == 0 && lock != NULL)
            fairness(lock, rank, nprocs, atoi(argv[3]));
        else if (strcmp(argv[2], "uncontended") == 0 && lock != NULL)
            uncontended(lock, rank, nprocs, atoi(argv[3]));
        else
            random_script(lock, rank, nprocs, atoi(argv[3]), argc > 4 ? (unsigned)atoi(argv[4]) : 1);
        if (lock != NULL) {
            CHECK_MPI(piox_lock_free(&lock));
            CHECK(lock == NULL, "piox_lock_free left the handle set");
        }
    }
    testlib_free_machine_counter(&counter);
    return testlib_finish_and_finalize();
}
