/*
 * atomic_overlap DIR [options] - atomic mode (MPI_File_set_atomicity) keeps
 * overlapping noncontiguous accesses whole: checked element by element.
 *
 * Every access writes a 4-byte stamp, (round + 1) << 16 | (rank + 1), into each int
 * it writes (etype MPI_INT), so every element names the access that wrote it; 0 means
 * never written. Elements are counted from the start of the file (byte = 4 * element).
 *
 * Layout (n ranks, n >= 2; SHIFT 32, BLOCK 48, STRIDE 32n elements, B blocks):
 *   rank r writes blocks [32r + k*STRIDE, 32r + k*STRIDE + 48), k = 0..B-1, through a
 *   vector filetype. Each rank overlaps its ring neighbours by 16 elements per block
 *   (rank n-1's block k overlaps rank 0's block k+1), so the overlap of two accesses is
 *   B separate pieces, and no element is covered by three writers.
 *
 * Phase "writers" (file DIR/atomic_overlap.writers): each round, every rank writes its
 * blocks at once; after a barrier rank 0 reads the file (POSIX pread, independent of
 * MPI-IO) and checks that each element holds a stamp of a writer covering it, and that
 * for each overlapping pair the whole overlap holds one of the two stamps.
 * Phase "readers" (file DIR/atomic_overlap.readers): even ranks write as above (rank
 * n-1 reads when n is odd, so writers never overlap); the others read, in the same
 * round, blocks [32r - 8 + k*STRIDE, 32r + 56 + k*STRIDE), which cut into the blocks of
 * writers r-1 and r+1. For every writer W, the elements of (read ∩ W) must be all
 * W's new stamp or all W's stamp of the previous round (0 before the first).
 *
 * Options:
 *   --rounds N      rounds per phase (default 100)     --blocks B  (default 32)
 *   --phase writers|readers|both (default both)
 *   --pointer       individual file pointer (seek + write/read) instead of *_at
 *   --collective    *_all routines in the writers phase (the readers phase stays
 *                   independent: one collective cannot mix reads and writes)
 *   --nonblocking   i* routines completed by MPI_Wait
 *   --large-count   the MPI-4 large-count forms (MPI_File_write_at_c and the rest)
 *   --nonatomic     leave atomicity off: to show the check can see torn accesses;
 *                   violations are then counted and reported, not failures
 *   --hint KEY=VALUE  an info hint at MPI_File_open (repeatable)
 * Rank 0 prints one summary line "atomic_overlap: ..." with the counts checked, and
 * " No Errors" when nothing failed; a violation names rank, round, byte offset and
 * the stamps expected and seen, and makes the exit status 1.
 */
#include "testlib.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

enum { SHIFT = 32, BLOCK = 48, READ_LEAD = 8, READ_BLOCK = 64, MAX_HINTS = 16 };
enum { MAX_REPORTS = 10 }; /* violations printed per rank; all are counted */

static struct {
    int rounds, blocks, pointer, collective, nonblocking, atomic, large_count;
    const char *phase;
    MPI_Info info;
} opt = {100, 32, 0, 0, 0, 1, 0, "both", MPI_INFO_NULL};

static char dir[3000];
static int rank, nranks;
static long violations, reported;

static uint32_t stamp(int writer, int round)
{
    return round < 0 ? 0 : (uint32_t)(round + 1) << 16 | (uint32_t)(writer + 1);
}
static long stride(void) { return (long)SHIFT * nranks; }
static long file_elements(void) { return stride() * (opt.blocks + 1); }

/* A violation: counted always, printed up to MAX_REPORTS, a failure in atomic mode. */
#define VIOLATION(...)                                                                \
    do {                                                                              \
        violations++;                                                                 \
        if (reported++ < MAX_REPORTS) {                                               \
            fprintf(stderr, "%s rank %d: ", opt.atomic ? "FAIL" : "TORN", rank);    \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
        }                                                                             \
    } while (0)

/* The filetype: B blocks of `block_length` ints, STRIDE apart (the view's
 * displacement says where the first one starts). */
static MPI_Datatype blocks_type(int block_length)
{
    MPI_Datatype vector;
    MPI_Type_vector(opt.blocks, block_length, (int)stride(), MPI_INT, &vector);
    MPI_Type_commit(&vector);
    return vector;
}
static long write_start(int r) { return (long)SHIFT * r; }
static long read_start(int r) { return (long)SHIFT * r - READ_LEAD; }

/* One access through the routine the options select; returns the ints moved. Made
 * for each count form: ACCESS_FILE(with_int, , int) calls MPI_File_write_at and the
 * rest, ACCESS_FILE(with_count, _c, MPI_Count) their MPI-4 large-count forms. */
#define ACCESS_FILE(name, c, Count)                                                              \
    static int name(MPI_File fh, int writing, int collective, uint32_t *buf, Count count)      \
    {                                                                                           \
        MPI_Status status;                                                                      \
        MPI_Request request;                                                                    \
        int rc, moved = -1;                                                                     \
        if (opt.pointer)                                                                        \
            CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));                                      \
        if (opt.nonblocking) {                                                                  \
            if (opt.pointer)                                                                    \
                rc = writing ? (collective ? MPI_File_iwrite_all##c : MPI_File_iwrite##c)(      \
                                   fh, buf, count, MPI_INT, &request)                           \
                             : (collective ? MPI_File_iread_all##c : MPI_File_iread##c)(        \
                                   fh, buf, count, MPI_INT, &request);                          \
            else                                                                                \
                rc = writing ? (collective ? MPI_File_iwrite_at_all##c : MPI_File_iwrite_at##c)( \
                                   fh, 0, buf, count, MPI_INT, &request)                        \
                             : (collective ? MPI_File_iread_at_all##c : MPI_File_iread_at##c)(  \
                                   fh, 0, buf, count, MPI_INT, &request);                       \
            if (rc == MPI_SUCCESS)                                                              \
                rc = MPI_Wait(&request, &status);                                               \
        } else if (opt.pointer) {                                                               \
            rc = writing ? (collective ? MPI_File_write_all##c : MPI_File_write##c)(            \
                               fh, buf, count, MPI_INT, &status)                                \
                         : (collective ? MPI_File_read_all##c : MPI_File_read##c)(              \
                               fh, buf, count, MPI_INT, &status);                               \
        } else {                                                                                \
            rc = writing ? (collective ? MPI_File_write_at_all##c : MPI_File_write_at##c)(      \
                               fh, 0, buf, count, MPI_INT, &status)                             \
                         : (collective ? MPI_File_read_at_all##c : MPI_File_read_at##c)(        \
                               fh, 0, buf, count, MPI_INT, &status);                            \
        }                                                                                       \
        CHECK(rc == MPI_SUCCESS, "%s failed (error %d)", writing ? "write" : "read", rc);       \
        if (rc == MPI_SUCCESS)                                                                  \
            MPI_Get_count(&status, MPI_INT, &moved);                                            \
        return moved;                                                                           \
    }
ACCESS_FILE(with_int, , int)
#if MPI_VERSION >= 4
ACCESS_FILE(with_count, _c, MPI_Count)
#endif

static int access_file(MPI_File fh, int writing, int collective, uint32_t *buf, int count)
{
#if MPI_VERSION >= 4
    if (opt.large_count)
        return with_count(fh, writing, collective, buf, count);
#endif
    return with_int(fh, writing, collective, buf, count);
}

/* Creates DIR/name afresh on every rank, sized to the layout (zeros), atomicity as asked. */
static MPI_File open_phase_file(const char *name, char *path, size_t n)
{
    MPI_File fh;
    snprintf(path, n, "%s/%s", dir, name);
    if (rank == 0) /* a file left by an earlier run would hold stale stamps */
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, opt.info, &fh));
    CHECK_MPI(MPI_File_set_size(fh, (MPI_Offset)file_elements() * 4));
    CHECK_MPI(MPI_File_set_atomicity(fh, opt.atomic));
    int flag = -1;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == opt.atomic, "get_atomicity says %d after set_atomicity(%d)", flag, opt.atomic);
    return fh;
}

static void set_blocks_view(MPI_File fh, long first_element, MPI_Datatype filetype)
{
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)first_element * 4, MPI_INT, filetype, "native",
                                MPI_INFO_NULL));
}

/* cover[2e], cover[2e+1]: the writers (or -1) whose blocks hold element e. */
static int *coverage(const int *writes)
{
    long elements = file_elements();
    int *cover = malloc(sizeof(int) * 2 * (size_t)elements);
    for (long e = 0; e < 2 * elements; e++)
        cover[e] = -1;
    for (int w = 0; w < nranks; w++) {
        if (!writes[w])
            continue;
        for (long k = 0; k < opt.blocks; k++)
            for (long j = 0; j < BLOCK; j++) {
                int *slot = &cover[2 * (write_start(w) + k * stride() + j)];
                slot[slot[0] >= 0] = w; /* the layout never puts three writers on one element */
            }
    }
    return cover;
}

static uint32_t *read_whole_file(const char *path)
{
    size_t bytes = (size_t)file_elements() * 4;
    uint32_t *data = calloc(1, bytes);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "cannot open %s to check it", path);
    if (fd >= 0) {
        ssize_t got = pread(fd, data, bytes, 0);
        CHECK(got == (ssize_t)bytes, "%s: read %zd of %zu bytes", path, got, bytes);
        close(fd);
    }
    return data;
}

/* Rank 0, after a writers round: each element holds a covering writer's stamp, and
 * each pair's overlap holds one stamp throughout. Returns the pairs checked. */
static long check_writers_round(const char *path, const int *cover, int round, int *winner,
                                long *first_at)
{
    uint32_t *data = read_whole_file(path);
    long pairs = 0;
    for (int i = 0; i < nranks * nranks; i++)
        winner[i] = -1;
    for (long e = 0; e < file_elements(); e++) {
        int a = cover[2 * e], b = cover[2 * e + 1];
        uint32_t seen = data[e];
        if (a < 0) {
            if (seen != 0)
                VIOLATION("round %d: byte %ld is written by no one but holds 0x%08x", round,
                          4 * e, seen);
            continue;
        }
        int from = seen == stamp(a, round) ? a : b >= 0 && seen == stamp(b, round) ? b : -1;
        if (from < 0) {
            VIOLATION("round %d: byte %ld holds 0x%08x, expected rank %d's 0x%08x%s", round,
                      4 * e, seen, a, stamp(a, round), b >= 0 ? " or the other writer's" : "");
            continue;
        }
        if (b < 0)
            continue;
        int pair = a < b ? a * nranks + b : b * nranks + a;
        if (winner[pair] < 0) {
            winner[pair] = from;
            first_at[pair] = e;
            pairs++;
        } else if (winner[pair] != from) {
            VIOLATION("round %d: overlap of ranks %d and %d is mixed: byte %ld holds rank %d's "
                      "0x%08x, byte %ld holds rank %d's 0x%08x", round, a, b, 4 * first_at[pair],
                      winner[pair], stamp(winner[pair], round), 4 * e, from, seen);
        }
    }
    free(data);
    return pairs;
}

static void run_writers_phase(long counts[2])
{
    char path[4096];
    MPI_File fh = open_phase_file("atomic_overlap.writers", path, sizeof path);
    MPI_Datatype filetype = blocks_type(BLOCK);
    set_blocks_view(fh, write_start(rank), filetype);
    const int count = opt.blocks * BLOCK;
    uint32_t *buf = malloc(sizeof(uint32_t) * (size_t)count);
    int *writes = malloc(sizeof(int) * (size_t)nranks), *winner = NULL, *cover;
    long *first_at = NULL;
    for (int w = 0; w < nranks; w++)
        writes[w] = 1;
    cover = coverage(writes);
    if (rank == 0) {
        winner = malloc(sizeof(int) * (size_t)nranks * (size_t)nranks);
        first_at = malloc(sizeof(long) * (size_t)nranks * (size_t)nranks);
    }
    for (int round = 0; round < opt.rounds; round++) {
        for (int i = 0; i < count; i++)
            buf[i] = stamp(rank, round);
        int wrote = access_file(fh, 1, opt.collective, buf, count);
        CHECK(wrote == count, "round %d: wrote %d of %d ints", round, wrote, count);
        counts[0]++;
        /* ROMIO (and piox over it) writes with pwrite at once: no sync needed for pread. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            counts[1] += check_writers_round(path, cover, round, winner, first_at);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&filetype);
    free(buf), free(writes), free(cover), free(winner), free(first_at);
}

/* A reader's check of one round: per writer, (read ∩ writer) is all new or all old. */
static void check_read(const uint32_t *buf, const int *cover, int round, long counts[4])
{
    int *state = malloc(sizeof(int) * (size_t)nranks); /* -1 unseen, 0 old, 1 new */
    long *first_at = malloc(sizeof(long) * (size_t)nranks);
    for (int w = 0; w < nranks; w++)
        state[w] = -1;
    for (long k = 0, i = 0; k < opt.blocks; k++)
        for (long j = 0; j < READ_BLOCK; j++, i++) {
            long e = read_start(rank) + k * stride() + j;
            int w = cover[2 * e];
            uint32_t seen = buf[i];
            if (w < 0) {
                if (seen != 0)
                    VIOLATION("round %d: byte %ld is written by no one but reads 0x%08x",
                              round, 4 * e, seen);
                continue;
            }
            int now = seen == stamp(w, round) ? 1 : seen == stamp(w, round - 1) ? 0 : -1;
            if (now < 0) {
                VIOLATION("round %d: byte %ld reads 0x%08x, expected writer %d's 0x%08x "
                          "or its old 0x%08x", round, 4 * e, seen, w, stamp(w, round),
                          stamp(w, round - 1));
            } else if (state[w] < 0) {
                state[w] = now;
                first_at[w] = e;
            } else if (state[w] != now) {
                VIOLATION("round %d: read of writer %d's access is torn: byte %ld reads "
                          "0x%08x, byte %ld reads 0x%08x", round, w, 4 * first_at[w],
                          stamp(w, state[w] ? round : round - 1), 4 * e, seen);
            }
        }
    for (int w = 0; w < nranks; w++)
        if (state[w] >= 0)
            counts[state[w] ? 2 : 3]++, counts[1]++;
    free(state), free(first_at);
}

static void run_readers_phase(long counts[4])
{
    char path[4096];
    MPI_File fh = open_phase_file("atomic_overlap.readers", path, sizeof path);
    int *writes = malloc(sizeof(int) * (size_t)nranks);
    for (int r = 0; r < nranks; r++)
        writes[r] = r % 2 == 0 && !(r == nranks - 1 && nranks % 2 == 1);
    const int writer = writes[rank];
    int *cover = coverage(writes);
    MPI_Datatype filetype = blocks_type(writer ? BLOCK : READ_BLOCK);
    set_blocks_view(fh, writer ? write_start(rank) : read_start(rank), filetype);
    const int count = opt.blocks * (writer ? BLOCK : READ_BLOCK);
    uint32_t *buf = malloc(sizeof(uint32_t) * (size_t)count);
    for (int round = 0; round < opt.rounds; round++) {
        for (int i = 0; i < count; i++)
            buf[i] = writer ? stamp(rank, round) : 0xFFFFFFFFu;
        int moved = access_file(fh, writer, 0, buf, count);
        CHECK(moved == count, "round %d: moved %d of %d ints", round, moved, count);
        if (!writer) {
            counts[0]++;
            check_read(buf, cover, round, counts);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&filetype);
    free(buf), free(writes), free(cover);
}

static int parse_options(int argc, char **argv)
{
    MPI_Info_create(&opt.info);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--pointer") == 0) opt.pointer = 1;
        else if (strcmp(a, "--collective") == 0) opt.collective = 1;
        else if (strcmp(a, "--nonblocking") == 0) opt.nonblocking = 1;
        else if (strcmp(a, "--nonatomic") == 0) opt.atomic = 0;
        else if (strcmp(a, "--large-count") == 0 && MPI_VERSION >= 4) opt.large_count = 1;
        else if (value && strcmp(a, "--rounds") == 0) opt.rounds = atoi(argv[++i]);
        else if (value && strcmp(a, "--blocks") == 0) opt.blocks = atoi(argv[++i]);
        else if (value && strcmp(a, "--phase") == 0) opt.phase = argv[++i];
        else if (value && strcmp(a, "--hint") == 0 && strchr(value, '=')) {
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(strchr(value, '=') - value), value);
            MPI_Info_set(opt.info, key, strchr(value, '=') + 1);
            i++;
        } else {
            return 0;
        }
    }
    return opt.rounds > 0 && opt.rounds < 65535 && opt.blocks > 0 &&
           (!strcmp(opt.phase, "writers") || !strcmp(opt.phase, "readers") ||
            !strcmp(opt.phase, "both"));
}

int main(int argc, char **argv)
{
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (!parse_options(argc, argv) || nranks < 2 || nranks > 65534) {
        if (rank == 0)
            fprintf(stderr, "usage: atomic_overlap DIR [--rounds N] [--blocks B] "
                            "[--phase writers|readers|both] [--pointer] [--collective] "
                            "[--nonblocking] [--large-count] [--nonatomic] "
                            "[--hint KEY=VALUE]... "
                            "(2 or more ranks)\n");
        MPI_Finalize();
        return 2;
    }
    /* writes, overlapping pairs; reads, intersections, all-new, all-old */
    long writers[2] = {0, 0}, readers[4] = {0, 0, 0, 0}, sums[7];
    if (strcmp(opt.phase, "readers") != 0)
        run_writers_phase(writers);
    if (strcmp(opt.phase, "writers") != 0)
        run_readers_phase(readers);
    long mine[7] = {writers[0], writers[1], readers[0], readers[1], readers[2], readers[3],
                    violations};
    MPI_Reduce(mine, sums, 7, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("atomic_overlap: atomicity=%d routine=%swrite%s%s ranks=%d rounds=%d "
               "writes=%ld overlapping_pairs=%ld reads=%ld intersections=%ld all_new=%ld "
               "all_old=%ld violations=%ld\n", opt.atomic, opt.nonblocking ? "i" : "",
               opt.pointer ? "" : "_at", opt.collective ? "_all" : "", nranks, opt.rounds,
               sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], sums[6]);
    if (opt.atomic)
        testlib_failures += (int)violations;
    MPI_Info_free(&opt.info);
    return testlib_finish_and_finalize();
}
