/*
 * optimistic_reads - piox_lock_optimistic_begin/_end (piox_lock.h) against writers
 * that tear: every read the lock lets a reader keep must be whole. Linked with the
 * core directly (no preloading).
 *
 *   optimistic_reads check|blind ITERATIONS DIR
 *
 * DIR/optimistic_reads.dat holds two spans that share a 64 KiB block of the lock's
 * write marks (write_marks.h), so a word: A, SPAN_A bytes from an unaligned offset
 * (in blocks 2 and 3), and B right after it (in block 3).
 * Rank 0 rewrites A, rank 1 (when there are 3 or more ranks) rewrites B, ITERATIONS
 * times each, under write requests of the lock: iteration i fills its span with the
 * byte i % 250 + 1, in PIECES pwrites with a sched_yield between them, so that a read
 * that overlaps a write is likely to see it in part. The other ranks read A and B
 * together, ITERATIONS times: an optimistic read when the lock lets one begin, kept
 * when it ends valid (check) or always (blind: the control, which must see torn
 * reads, or this test could not fail); otherwise, and for a discarded read, the
 * same read under a read request. Every read kept or locked must find A one byte
 * value throughout and B too.
 *
 * Also checks the calls' errors: begin while holding a request or reading, end
 * without a begin, and bad arguments.
 * Rank 0 prints "reads: K kept, D discarded, N not begun, T torn" (over all
 * readers) and " No Errors" when no check failed (torn reads included, in check
 * mode; blind mode expects them and fails when it sees none).
 */
#include "piox_lock.h"
#include "testlib.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFFSET_A (40 * 4096 + 100) /* unaligned: A's blocks are not whole */
#define SPAN_A (64 * 1024)
#define SPAN_B 3000 /* starts in A's last block */
#define PIECES 4

static int uniform(const unsigned char *bytes, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (bytes[i] != bytes[0])
            return 0;
    return 1;
}

static void write_span(piox_lock *lock, int fd, off_t offset, size_t length, int iteration,
                       unsigned char *buf)
{
    const piox_extent extent = {offset, (MPI_Offset)length};
    memset(buf, iteration % 250 + 1, length);
    CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_WRITE, &extent, 1));
    const size_t piece = length / PIECES;
    for (size_t done = 0; done < length; done += piece) {
        const size_t n = length - done < piece ? length - done : piece;
        CHECK(pwrite(fd, buf + done, n, offset + (off_t)done) == (ssize_t)n, "pwrite");
        sched_yield();
    }
    CHECK_MPI(piox_lock_release(lock));
}

static int whole(const unsigned char *span)
{
    return uniform(span, SPAN_A) && uniform(span + SPAN_A, SPAN_B);
}

static void read_locked(piox_lock *lock, int fd, const piox_extent *extent, unsigned char *buf,
                        long long *torn)
{
    CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_READ, extent, 1));
    CHECK(pread(fd, buf, SPAN_A + SPAN_B, OFFSET_A) == SPAN_A + SPAN_B, "pread");
    CHECK_MPI(piox_lock_release(lock));
    *torn += !whole(buf);
}

static void check_errors(piox_lock *lock)
{
    const piox_extent extent = {0, 10}, negative = {-1, 10};
    int begun = 0, valid = 0;
    CHECK_ERROR_CLASS(piox_lock_optimistic_end(lock, &valid), MPI_ERR_OTHER);
    CHECK_ERROR_CLASS(piox_lock_optimistic_begin(NULL, &extent, 1, &begun), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(piox_lock_optimistic_begin(lock, &extent, -1, &begun), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(piox_lock_optimistic_begin(lock, &negative, 1, &begun), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(piox_lock_optimistic_begin(lock, &extent, 1, NULL), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(piox_lock_optimistic_end(NULL, &valid), MPI_ERR_ARG);
    CHECK_MPI(piox_lock_acquire(lock, PIOX_LOCK_READ, &extent, 1));
    CHECK_ERROR_CLASS(piox_lock_optimistic_begin(lock, &extent, 1, &begun), MPI_ERR_OTHER);
    CHECK_MPI(piox_lock_release(lock));
    CHECK_MPI(piox_lock_optimistic_begin(lock, &extent, 1, &begun));
    if (begun) { /* nothing else writes this region: a range lock on one node begins */
        CHECK_ERROR_CLASS(piox_lock_acquire(lock, PIOX_LOCK_READ, &extent, 1), MPI_ERR_OTHER);
        CHECK_ERROR_CLASS(piox_lock_optimistic_begin(lock, &extent, 1, &begun), MPI_ERR_OTHER);
        CHECK_MPI(piox_lock_optimistic_end(lock, &valid));
        CHECK(valid == 1, "nothing wrote the region, yet the read was not valid");
    }
    CHECK_ERROR_CLASS(piox_lock_optimistic_end(lock, &valid), MPI_ERR_OTHER);
    /* No extents: nothing to read, nothing begins. */
    CHECK_MPI(piox_lock_optimistic_begin(lock, NULL, 0, &begun));
    CHECK(begun == 0, "an optimistic read of nothing began");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "blind") != 0) ||
        size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s check|blind ITERATIONS DIR (2 or more ranks)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const int blind = strcmp(argv[1], "blind") == 0;
    const int iterations = atoi(argv[2]);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/optimistic_reads.dat", argv[3]);

    piox_lock *lock = NULL;
    CHECK_MPI(piox_lock_create(MPI_COMM_WORLD, PIOX_LOCK_RANGE, &lock));
    if (rank == 0) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0, "create %s", path);
        CHECK(ftruncate(fd, OFFSET_A + SPAN_A + SPAN_B) == 0, "ftruncate");
        close(fd);
    }
    check_errors(lock);
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0, "open %s", path);
    unsigned char *buf = malloc(SPAN_A + SPAN_B);
    /* Rank 0 writes A, rank 1 writes B when 3 or more ranks leave a reader. */
    const int writer_of_b = size >= 3 ? 1 : -1;
    long long counts[4] = {0, 0, 0, 0}; /* kept, discarded, not begun, torn */
    const piox_extent both = {OFFSET_A, SPAN_A + SPAN_B};
    for (int i = 0; i < iterations; i++) {
        if (rank == 0) {
            write_span(lock, fd, OFFSET_A, SPAN_A, i, buf);
        } else if (rank == writer_of_b) {
            write_span(lock, fd, OFFSET_A + SPAN_A, SPAN_B, i, buf);
        } else {
            int begun = 0, valid = 0;
            CHECK_MPI(piox_lock_optimistic_begin(lock, &both, 1, &begun));
            if (!begun) {
                counts[2]++;
                read_locked(lock, fd, &both, buf, &counts[3]);
                continue;
            }
            sched_yield(); /* widens the window in which a write may begin */
            CHECK(pread(fd, buf, SPAN_A + SPAN_B, OFFSET_A) == SPAN_A + SPAN_B, "pread");
            CHECK_MPI(piox_lock_optimistic_end(lock, &valid));
            if (valid || blind) {
                counts[0]++;
                counts[3] += !whole(buf);
            } else {
                counts[1]++;
                read_locked(lock, fd, &both, buf, &counts[3]);
            }
        }
    }
    long long total[4];
    MPI_Reduce(counts, total, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("reads: %lld kept, %lld discarded, %lld not begun, %lld torn\n", total[0],
               total[1], total[2], total[3]);
        fflush(stdout);
        if (blind)
            CHECK(total[3] > 0, "blind reads saw no torn span: the check could not fail");
        else
            CHECK(total[3] == 0, "%lld reads were torn", total[3]);
    }
    free(buf);
    close(fd);
    CHECK_MPI(piox_lock_free(&lock));
    return testlib_finish_and_finalize();
}
