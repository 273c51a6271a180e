/*
 * sieved_writes - piox_lock_sieved_write (piox_lock.h) under load: finely interleaved
 * writers of one span, combined on one node, checked int by int. Linked with the
 * core directly (no preloading).
 *
 *   sieved_writes KIND ITERATIONS SEED DIR
 *
 * DIR/sieved_writes.dat holds CELLS ints from byte BASE on, across a 256 KiB region
 * boundary (two shards of the lock). Cell c belongs to rank c % P. Each iteration of
 * a rank is, from a script every rank can regenerate (SEED, rank, iteration):
 *   - 3 times in 4, a sieved write of some of its own cells (a first cell, a step,
 *     a count: 4-byte pieces P cells or more apart), each cell set to
 *     VALUE(rank, iteration);
 *   - else a read: it locks a random range of cells for reading, reads it, and
 *     checks that each cell holds 0 or a value of its owner's whose write covers
 *     the cell, and that for each rank the latest write seen in the range is seen
 *     whole (every cell of it in the range holds it): all or nothing.
 * At the end rank 0 checks every cell against the last write of its owner that
 * covers it: no update lost. With 2 ranks a write may cover up to 20,000 cells,
 * more than a post holds (64 KiB), so writes that cannot be taken are mixed in.
 *
 * Before the random scripts (KIND range and mutex): rank 0 holds a write lock on
 * every cell while the others post a sieved write of all their cells, then lets
 * go; on one node with KIND range the first of them writes the rest with its own.
 * Rank 0 prints how many writes of that queue and of the scripts others wrote
 * (piox_lock_combined_writes): "queued: N of M written by others", "scripts: ...".
 *
 * KIND is range, mutex, or none: no lock at all, each write sieving by itself,
 * the control that shows the checks catch lost and torn writes. Rank 0 prints
 * " No Errors" when every check passed.
 */
#include "piox_lock.h"
#include "testlib.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define CELLS 40000
#define BASE (256 * 1024 - 64 * 1024)
#define VALUE(rank, iteration) ((uint32_t)((rank) + 1) << 20 | (uint32_t)((iteration) + 1))
#define QUEUED_ITERATION 0xffffe /* the queued writes' "iteration" in VALUE */

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Iteration i of rank r: a read, or a write of own cells first + step * k, k < count
 * (cell indices among the rank's own: cell = r + P * own). */
typedef struct {
    int write;
    int first, step, count;
    int read_from, read_to; /* cells, for a read */
} script_step;

static int own_cells(int rank, int nprocs) { return (CELLS - rank + nprocs - 1) / nprocs; }

static script_step step_of(unsigned seed, int rank, int nprocs, int iteration)
{
    uint32_t h = hash(seed * 0x9e3779b9u ^ hash((uint32_t)rank * 0x85ebca6bu ^ (uint32_t)iteration));
    script_step s = {0};
    s.write = h % 4 != 0;
    const int own = own_cells(rank, nprocs);
    h = hash(h);
    s.first = (int)(h % (uint32_t)own);
    h = hash(h);
    s.step = 1 + (int)(h % 3);
    h = hash(h);
    const int room = (own - 1 - s.first) / s.step + 1;
    s.count = 1 + (int)(h % (uint32_t)room);
    h = hash(h);
    s.read_from = (int)(h % CELLS);
    h = hash(h);
    s.read_to = s.read_from + 1 + (int)(h % (uint32_t)(CELLS - s.read_from));
    return s;
}

/* Whether write step s of rank covers cell (one of rank's). */
static int covers(const script_step *s, int rank, int nprocs, int cell)
{
    const int own = (cell - rank) / nprocs;
    return own >= s->first && (own - s->first) % s->step == 0 && (own - s->first) / s->step < s->count;
}

static MPI_Offset cell_offset(int cell) { return BASE + 4 * (MPI_Offset)cell; }

/* The pieces and stream of a write of `count` own cells from `first` by `step`. */
static int build_write(int rank, int nprocs, int first, int step, int count, uint32_t value,
                       piox_extent *pieces, uint32_t *stream)
{
    for (int k = 0; k < count; k++) {
        pieces[k].offset = cell_offset(rank + nprocs * (first + step * k));
        pieces[k].length = 4;
        stream[k] = value;
    }
    return count;
}

/* The control's write: sieving without any lock. */
static void unlocked_sieve(int fd, const piox_extent *pieces, int n, const uint32_t *stream)
{
    const MPI_Offset begin = pieces[0].offset, end = pieces[n - 1].offset + pieces[n - 1].length;
    char *span = calloc(1, (size_t)(end - begin));
    CHECK(pread(fd, span, (size_t)(end - begin), begin) >= 0, "pread failed");
    for (int k = 0; k < n; k++)
        memcpy(span + (pieces[k].offset - begin), &stream[k], 4);
    CHECK(pwrite(fd, span, (size_t)(end - begin), begin) == end - begin, "pwrite failed");
    free(span);
}

static void write_cells(piox_lock *lock, int fd, const piox_extent *pieces, int n,
                        const uint32_t *stream)
{
    if (lock != NULL)
        CHECK_MPI(piox_lock_sieved_write(lock, fd, pieces, n, stream));
    else
        unlocked_sieve(fd, pieces, n, stream);
}

/* A read's checks (see the top): cells [from, to) as read. */
static void check_read(const uint32_t *cells, int from, int to, unsigned seed, int nprocs,
                       int reader, int iteration)
{
    int *latest = malloc(sizeof(int) * (size_t)nprocs);
    for (int r = 0; r < nprocs; r++)
        latest[r] = -1;
    for (int c = from; c < to; c++) {
        const uint32_t v = cells[c - from];
        if (v == 0)
            continue;
        const int owner = c % nprocs, writer = (int)(v >> 20) - 1, it = (int)(v & 0xfffff) - 1;
        if (it == QUEUED_ITERATION - 1)
            continue; /* the queued write covers every own cell */
        script_step s = step_of(seed, writer, nprocs, it);
        CHECK(writer == owner && s.write && covers(&s, owner, nprocs, c),
              "rank %d iteration %d read cell %d = %#x: no write of its owner put it there",
              reader, iteration, c, v);
        if (it > latest[owner])
            latest[owner] = it;
    }
    for (int r = 0; r < nprocs; r++) {
        if (latest[r] < 0)
            continue;
        script_step s = step_of(seed, r, nprocs, latest[r]);
        for (int c = from + ((r - from % nprocs) + nprocs) % nprocs; c < to; c += nprocs)
            if (covers(&s, r, nprocs, c))
                CHECK(cells[c - from] == VALUE(r, latest[r]),
                      "rank %d iteration %d saw rank %d's write %d in part: cell %d = %#x",
                      reader, iteration, r, latest[r], c, cells[c - from]);
    }
    free(latest);
}

static void random_script(piox_lock *lock, int fd, int rank, int nprocs, int iterations,
                          unsigned seed, piox_extent *pieces, uint32_t *stream)
{
    uint32_t *cells = malloc(sizeof(uint32_t) * CELLS);
    for (int i = 0; i < iterations; i++) {
        script_step s = step_of(seed, rank, nprocs, i);
        if (s.write) {
            int n = build_write(rank, nprocs, s.first, s.step, s.count, VALUE(rank, i), pieces,
                                stream);
            write_cells(lock, fd, pieces, n, stream);
            continue;
        }
        piox_extent range = {cell_offset(s.read_from), 4 * (MPI_Offset)(s.read_to - s.read_from)};
        if (lock != NULL)
            CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_READ, &range, 1));
        ssize_t got = pread(fd, cells, (size_t)range.length, range.offset);
        if (lock != NULL)
            CHECK_MPI(piox_lock_release(lock));
        CHECK(got == range.length, "short read: %zd of %lld bytes", got, (long long)range.length);
        check_read(cells, s.read_from, s.read_to, seed, nprocs, rank, i);
    }
    free(cells);
}

/* Rank 0 holds every cell while the others queue a write of all theirs. */
static void queued_writes(piox_lock *lock, int fd, int rank, int nprocs, piox_extent *pieces,
                          uint32_t *stream, int64_t *queued)
{
    if (rank == 0) {
        piox_extent all = {cell_offset(0), 4 * (MPI_Offset)CELLS};
        CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_WRITE, &all, 1));
        MPI_Barrier(MPI_COMM_WORLD);
        /* Each announces itself just before its call; then give the calls time to
         * queue (10 s at most). A late one is only not combined. */
        for (int waited = 0; waited < 10000 &&
                             __atomic_load_n(queued, __ATOMIC_SEQ_CST) < nprocs - 1; waited++)
            usleep(1000);
        usleep(200000);
        CHECK_MPI(piox_lock_release(lock));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        const int own = own_cells(rank, nprocs);
        int n = build_write(rank, nprocs, 0, 1, own, VALUE(rank, QUEUED_ITERATION - 1), pieces,
                            stream);
        __atomic_fetch_add(queued, 1, __ATOMIC_SEQ_CST);
        write_cells(lock, fd, pieces, n, stream);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every cell against the last write of its owner that covers it. */
static void check_final(int fd, int nprocs, int iterations, unsigned seed, int queued)
{
    uint32_t *cells = malloc(sizeof(uint32_t) * CELLS);
    CHECK(pread(fd, cells, sizeof(uint32_t) * CELLS, cell_offset(0)) == sizeof(uint32_t) * CELLS,
          "the file is short");
    int wrong = 0;
    for (int c = 0; c < CELLS; c++) {
        const int owner = c % nprocs;
        uint32_t want = queued && owner != 0 ? VALUE(owner, QUEUED_ITERATION - 1) : 0;
        for (int i = iterations - 1; i >= 0; i--) {
            script_step s = step_of(seed, owner, nprocs, i);
            if (s.write && covers(&s, owner, nprocs, c)) {
                want = VALUE(owner, i);
                break;
            }
        }
        if (cells[c] != want && wrong++ < 5)
            CHECK(0, "cell %d = %#x, want %#x: an update was lost", c, cells[c], want);
    }
    CHECK(wrong == 0, "%d cells of %d wrong", wrong, CELLS);
    free(cells);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, nprocs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: %s range|mutex|none ITERATIONS SEED DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const int iterations = atoi(argv[2]);
    const unsigned seed = (unsigned)atoi(argv[3]);
    char path[4096];
    snprintf(path, sizeof path, "%s/sieved_writes.dat", argv[4]);
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0, "cannot create %s", path);
        if (fd >= 0) {  /* every cell 0, so that no read is short */
            CHECK(ftruncate(fd, cell_offset(CELLS)) == 0, "cannot size %s", path);
            close(fd);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const int fd = open(path, O_RDWR);
    CHECK(fd >= 0, "cannot open %s", path);

    /* The queue's announcements. */
    testlib_machine_counter queued = testlib_new_machine_counter();

    piox_lock *lock = NULL;
    if (strcmp(argv[1], "none") != 0)
        CHECK_MPI(piox_lock_create(MPI_COMM_WORLD,
                                   strcmp(argv[1], "mutex") == 0 ? PIOX_LOCK_MUTEX : PIOX_LOCK_RANGE,
                                   &lock));
    piox_extent *pieces = malloc(sizeof(piox_extent) * CELLS);
    uint32_t *stream = malloc(sizeof(uint32_t) * CELLS);
    long long counts[2] = {0, 0}, totals[2] = {0, 0};
    if (fd >= 0 && lock != NULL) {
        queued_writes(lock, fd, rank, nprocs, pieces, stream, queued.value);
        CHECK_MPI(piox_lock_combined_writes(lock, &counts[0], &counts[1]));
        MPI_Reduce(&counts[1], &totals[1], 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("queued: %lld of %d written by others\n", totals[1], nprocs - 1);
    }
    if (fd >= 0)
        random_script(lock, fd, rank, nprocs, iterations, seed, pieces, stream);
    MPI_Barrier(MPI_COMM_WORLD);
    if (lock != NULL) {
        long long before[2] = {counts[0], counts[1]};
        CHECK_MPI(piox_lock_combined_writes(lock, &counts[0], &counts[1]));
        counts[0] -= before[0];
        counts[1] -= before[1];
        MPI_Reduce(counts, totals, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("scripts: %lld writes written by others, in %lld combined passes\n", totals[1],
                   totals[0]);
    }
    if (rank == 0 && fd >= 0)
        check_final(fd, nprocs, iterations, seed, lock != NULL);
    if (lock != NULL) {
        CHECK_MPI(piox_lock_free(&lock));
    }
    if (fd >= 0)
        close(fd);
    free(pieces);
    free(stream);
    testlib_free_machine_counter(&queued);
    return testlib_finish_and_finalize();
}
