/*
 * atomic.c - the cost of MPI-IO atomic mode (MPI_File_set_atomicity(fh, 1)).
 *
 *   atomic CASE DIRECTORY [--ints N] [--block BYTES] [--blocks N] [--budget SECONDS]
 *          [--warmup SECONDS] [--max-iterations N] [--hint KEY=VALUE]...
 *
 * CASE is one of
 *   atomicity_contig     ROMIO's test/atomicity.c, first half, repeated: rank 0
 *                        writes N ints (--ints, default 10000, as the test) at
 *                        offset 0 while ranks 1.. read the same N ints
 *   atomicity_noncontig  its second half: the same through a view whose filetype
 *                        is a vector of N ints, one in two (the file's odd ints
 *                        are holes that nobody writes)
 *   atomicity_block      the same N ints through a view whose filetype is two
 *                        blocks of N ints, N ints apart: the access lies inside
 *                        one block of a noncontiguous view (ROMIO reads that
 *                        with a single contiguous read of its own)
 *   atomicity_collective the writer as in atomicity_contig, then a read_at_all of
 *                        nothing; each reader reads its own slice of the N ints
 *                        with MPI_File_read_at_all. The slices do not overlap, so
 *                        ROMIO reads each independently, and the writer, done
 *                        with its part of the collective, may already be writing
 *                        the next version
 *   disjoint_writers     every rank writes --blocks blocks of --block bytes per
 *                        call through a vector view in which rank r owns every
 *                        ranks-th block: interleaved, never overlapping
 *   lone_writer          the last rank writes --block bytes at offset 0 while the
 *                        others wait inside MPI (in the reduction that ends each
 *                        batch of iterations): an uncontended lock. Its driver runs
 *                        it over two emulated nodes (PIOX_HOSTNAME), so that piox's
 *                        lock is the one across nodes, homed on rank 0
 *
 * Every --hint goes into the MPI_Info of MPI_File_open (piox reads
 * piox_atomic_lock=range|mutex there). Plain C against the MPI standard, so that
 * the same binary runs with stock MPICH or with libpiox preloaded.
 *
 * One run: a fresh file, open, atomic mode, view; a warm-up that sizes the run to
 * --budget seconds (calibrate in benchlib.h), the timed iterations, close, then
 * the check of the file; the file is deleted. Accesses use the explicit-offset
 * routines (write_at/read_at at 0) so that every iteration touches the same bytes,
 * as the test's single access does.
 *
 * What is checked. In the atomicity cases, each read must return all old or all
 * new data, as ROMIO's test demands: rank 0 writes version k+1 over version k,
 * so every int a read returns must be equal, and (atomic mode is sequentially
 * consistent) never older than what that reader saw before. After close, the file
 * must hold the last version in every written int and 0 in every hole. In
 * disjoint_writers, every block must hold, in every tag-sized word, its owner's
 * tag for the last iteration, byte for byte: a lost update or a write into a
 * neighbour's block fails. Tags are 8 bytes where --block is a multiple of 8, else
 * 4 bytes (--block must be a multiple of 4): so 4-byte blocks, the fine
 * interleaving of vector(N,1,ranks) ints, carry one tag each, and every int must
 * hold its writer's last one. A 4-byte tag holds the rank in its top byte (254
 * ranks at most) and the iteration modulo 2^24 - 1 below it. In lone_writer, every
 * word must hold the writer's tag for its last iteration.
 * A failed check prints the problem on stderr and ends the run with status 1.
 *
 * Rank 0 prints one line of JSON on stdout (keys documented at print_result).
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchlib.h"

#define LOCK_HINT "piox_atomic_lock"  /* reported back when the file's info has it */

struct options {
    const struct scenario *scenario;
    const char *directory;
    int ints;              /* atomicity cases: ints per access */
    int block;             /* disjoint_writers: bytes per block; lone_writer: per call */
    int tag_bytes;         /* 8 where block is a multiple of 8, else 4 */
    int blocks;            /* disjoint_writers: blocks per call and rank */
    double budget;         /* seconds of timed iterations */
    double warmup;         /* seconds of the warm-up */
    uint64_t max_iterations;
    MPI_Info info;         /* the --hint pairs, for MPI_File_open */
};

/* One run's state, on every rank. */
struct run {
    const struct options *o;
    MPI_File fh;
    char path[4096];
    void *buffer;
    int count;                 /* elements per access (ints, or bytes) */
    uint64_t iterations_done;  /* warm-up and timed */
    double access_seconds;     /* this rank's time inside the MPI calls */
    /* atomicity cases */
    int version;               /* rank 0: last written; readers: last seen */
    int final_version;         /* rank 0's last, once the timed loop is over */
    uint64_t reads, reads_of_new_data;
    char problem[256];         /* the first check that failed on this rank */
};

/* ---- the cases -------------------------------------------------------------- */

struct scenario {
    const char *name;
    uint64_t (*file_bytes)(const struct options *o);  /* the file once written */
    void (*set_view)(struct run *run, MPI_Datatype *filetype);
    void (*access)(struct run *run);                 /* one iteration on this rank */
    void (*check_file)(struct run *run, const unsigned char *file, uint64_t bytes);
    uint64_t (*bytes_per_access)(const struct options *o);
};

static void fail(struct run *run, const char *format, ...)
{
    if (run->problem[0] != '\0')
        return;  /* the first problem says most */
    va_list args;
    va_start(args, format);
    vsnprintf(run->problem, sizeof run->problem, format, args);
    va_end(args);
}

/* atomicity_contig, atomicity_noncontig, atomicity_block, atomicity_collective -- */

static uint64_t contig_file_bytes(const struct options *o)
{
    return (uint64_t)o->ints * sizeof(int);
}

static uint64_t noncontig_file_bytes(const struct options *o)
{
    return (uint64_t)(2 * o->ints - 1) * sizeof(int);  /* ends on the last data int */
}

static uint64_t atomicity_bytes_per_access(const struct options *o)
{
    return (uint64_t)o->ints * sizeof(int);
}

static void contig_view(struct run *run, MPI_Datatype *filetype)
{
    (void)run;
    *filetype = MPI_DATATYPE_NULL;  /* the default view: bytes, contiguous */
}

static void noncontig_view(struct run *run, MPI_Datatype *filetype)
{
    /* As test/atomicity.c: MPI_Type_vector(BUFSIZE, 1, 2, MPI_INT). */
    MPI_Type_vector(run->o->ints, 1, 2, MPI_INT, filetype);
    MPI_Type_commit(filetype);
    check_mpi(MPI_File_set_view(run->fh, 0, MPI_INT, *filetype, "native", run->o->info),
              "MPI_File_set_view");
}

static void block_view(struct run *run, MPI_Datatype *filetype)
{
    /* Noncontiguous, but the access (N ints at 0) fills its first block exactly. */
    MPI_Type_vector(2, run->o->ints, 2 * run->o->ints, MPI_INT, filetype);
    MPI_Type_commit(filetype);
    check_mpi(MPI_File_set_view(run->fh, 0, MPI_INT, *filetype, "native", run->o->info),
              "MPI_File_set_view");
}

/* The writer's part: the next version in every one of the N ints. */
static void write_next_version(struct run *run)
{
    int *ints = run->buffer;
    const int n = run->o->ints;
    MPI_Status status;
    run->version++;
    for (int i = 0; i < n; i++)
        ints[i] = run->version;
    const double start = MPI_Wtime();
    check_mpi(MPI_File_write_at(run->fh, 0, ints, n, MPI_INT, &status), "MPI_File_write_at");
    run->access_seconds += MPI_Wtime() - start;
}

/* A reader's check of the `n` ints it read: all old or all new, as ROMIO's test
 * checks; outside the timing. */
static void check_one_version(struct run *run, const int *ints, int n)
{
    const int seen = ints[0];
    for (int i = 1; i < n; i++)
        if (ints[i] != seen) {
            fail(run, "read %llu returned a mix: int 0 is version %d, int %d version %d",
                 (unsigned long long)run->reads, seen, i, ints[i]);
            break;
        }
    if (seen < run->version)
        fail(run, "read %llu returned version %d after version %d had been read",
             (unsigned long long)run->reads, seen, run->version);
    if (seen > run->version)
        run->reads_of_new_data++;
    run->version = seen;
    run->reads++;
}

static void atomicity_access(struct run *run)
{
    if (world_rank == 0) {
        write_next_version(run);
        return;
    }
    MPI_Status status;
    const double start = MPI_Wtime();
    check_mpi(MPI_File_read_at(run->fh, 0, run->buffer, run->o->ints, MPI_INT, &status),
              "MPI_File_read_at");
    run->access_seconds += MPI_Wtime() - start;
    check_one_version(run, run->buffer, run->o->ints);
}

static void collective_access(struct run *run)
{
    MPI_Status status;
    if (world_rank == 0) {
        write_next_version(run);
        check_mpi(MPI_File_read_at_all(run->fh, 0, run->buffer, 0, MPI_INT, &status),
                  "MPI_File_read_at_all");
        return;
    }
    const long long n = run->o->ints, readers = world_size - 1;
    const int first = (int)(n * (world_rank - 1) / readers);
    const int count = (int)(n * world_rank / readers) - first;
    const double start = MPI_Wtime();
    const MPI_Offset at = (MPI_Offset)first * (MPI_Offset)sizeof(int);  /* the view's etype: byte */
    check_mpi(MPI_File_read_at_all(run->fh, at, run->buffer, count, MPI_INT, &status),
              "MPI_File_read_at_all");
    run->access_seconds += MPI_Wtime() - start;
    check_one_version(run, run->buffer, count);
}

static void check_atomicity_file(struct run *run, const unsigned char *file, uint64_t bytes,
                                 int stride)
{
    const int last = run->final_version;
    const int *ints = (const int *)file;
    for (uint64_t i = 0; i < bytes / sizeof(int); i++) {
        const int expected = i % (uint64_t)stride == 0 ? last : 0;
        if (ints[i] != expected) {
            fail(run, "file int %llu is %d, expected %d (%s)", (unsigned long long)i, ints[i],
                 expected, expected ? "the last version written" : "a hole");
            return;
        }
    }
}

static void check_contig_file(struct run *run, const unsigned char *file, uint64_t bytes)
{
    check_atomicity_file(run, file, bytes, 1);
}

static void check_noncontig_file(struct run *run, const unsigned char *file, uint64_t bytes)
{
    check_atomicity_file(run, file, bytes, 2);
}

/* disjoint_writers -------------------------------------------------------------- */

/* A writer's tag for an iteration, in tag_bytes bytes: the rank above, the iteration
 * below; never 0, as holes read. */
static uint64_t writer_tag(int rank, uint64_t iteration, int tag_bytes)
{
    const int shift = tag_bytes == 8 ? 40 : 24;
    return ((uint64_t)(rank + 1) << shift) | (iteration % ((1ULL << shift) - 1) + 1);
}

/* The tag's tag_bytes bytes, in memory order, at `at` (unaligned). */
static void store_tag(unsigned char *at, uint64_t tag, int tag_bytes)
{
    if (tag_bytes == 8) {
        memcpy(at, &tag, 8);
    } else {
        const uint32_t narrow = (uint32_t)tag;
        memcpy(at, &narrow, 4);
    }
}

static uint64_t load_tag(const unsigned char *at, int tag_bytes)
{
    if (tag_bytes == 8) {
        uint64_t tag;
        memcpy(&tag, at, 8);
        return tag;
    }
    uint32_t narrow;
    memcpy(&narrow, at, 4);
    return narrow;
}

static uint64_t disjoint_bytes_per_access(const struct options *o)
{
    return (uint64_t)o->blocks * (uint64_t)o->block;
}

static uint64_t disjoint_file_bytes(const struct options *o)
{
    return disjoint_bytes_per_access(o) * (uint64_t)world_size;
}

static void disjoint_view(struct run *run, MPI_Datatype *filetype)
{
    const struct options *o = run->o;
    /* Rank r's blocks: r, r + ranks, r + 2 ranks, ... */
    MPI_Type_vector(o->blocks, o->block, o->block * world_size, MPI_BYTE, filetype);
    MPI_Type_commit(filetype);
    check_mpi(MPI_File_set_view(run->fh, (MPI_Offset)world_rank * o->block, MPI_BYTE, *filetype,
                                "native", o->info),
              "MPI_File_set_view");
}

/* This rank's tag for this iteration in every word of the buffer, written at offset 0
 * of the view (disjoint_writers on every rank, lone_writer on the last). */
static void write_tagged(struct run *run)
{
    const int width = run->o->tag_bytes;
    const uint64_t tag = writer_tag(world_rank, run->iterations_done, width);
    for (size_t at = 0; at + (size_t)width <= (size_t)run->count; at += (size_t)width)
        store_tag((unsigned char *)run->buffer + at, tag, width);
    MPI_Status status;
    const double start = MPI_Wtime();
    check_mpi(MPI_File_write_at(run->fh, 0, run->buffer, run->count, MPI_BYTE, &status),
              "MPI_File_write_at");
    run->access_seconds += MPI_Wtime() - start;
}

/* The offset of the first tag_bytes-byte word of data[0, bytes) that is not tag, or
 * -1. bytes is a multiple of tag_bytes, so every byte is compared. */
static long first_other_word(const unsigned char *data, uint64_t bytes, uint64_t tag,
                             int tag_bytes)
{
    for (uint64_t at = 0; at + (uint64_t)tag_bytes <= bytes; at += (uint64_t)tag_bytes)
        if (load_tag(data + at, tag_bytes) != tag)
            return (long)at;
    return -1;
}

static void check_disjoint_file(struct run *run, const unsigned char *file, uint64_t bytes)
{
    const int block = run->o->block, width = run->o->tag_bytes;
    const uint64_t last = run->iterations_done - 1;  /* the same on every rank */
    for (uint64_t b = 0; b < bytes / (uint64_t)block; b++) {
        const int owner = (int)(b % (uint64_t)world_size);
        if (owner != world_rank)
            continue;  /* each rank checks its own blocks: the file is read once */
        const unsigned char *data = file + b * (uint64_t)block;
        const uint64_t expected = writer_tag(owner, last, width);
        const long at = first_other_word(data, (uint64_t)block, expected, width);
        if (at >= 0) {
            fail(run, "block %llu (rank %d's) holds at byte %ld the tag %#llx, expected "
                      "%#llx (its last write)",
                 (unsigned long long)b, owner, at,
                 (unsigned long long)load_tag(data + at, width), (unsigned long long)expected);
            return;
        }
    }
}

/* lone_writer ------------------------------------------------------------------- */

static uint64_t lone_bytes(const struct options *o)
{
    return (uint64_t)o->block;
}

static void lone_writer_access(struct run *run)
{
    if (world_rank == world_size - 1)
        write_tagged(run);  /* the others wait in timed_iterations' reduction, in MPI */
}

static void check_lone_file(struct run *run, const unsigned char *file, uint64_t bytes)
{
    const int width = run->o->tag_bytes;
    const uint64_t expected = writer_tag(world_size - 1, run->iterations_done - 1, width);
    const long at = first_other_word(file, bytes, expected, width);
    if (at >= 0)
        fail(run, "byte %ld does not hold the tag %#llx (the last write)", at,
             (unsigned long long)expected);
}

static const struct scenario scenarios[] = {
    {"atomicity_contig", contig_file_bytes, contig_view, atomicity_access, check_contig_file,
     atomicity_bytes_per_access},
    {"atomicity_noncontig", noncontig_file_bytes, noncontig_view, atomicity_access,
     check_noncontig_file, atomicity_bytes_per_access},
    {"atomicity_block", contig_file_bytes, block_view, atomicity_access, check_contig_file,
     atomicity_bytes_per_access},
    {"atomicity_collective", contig_file_bytes, contig_view, collective_access,
     check_contig_file, atomicity_bytes_per_access},
    {"disjoint_writers", disjoint_file_bytes, disjoint_view, write_tagged, check_disjoint_file,
     disjoint_bytes_per_access},
    {"lone_writer", lone_bytes, contig_view, lone_writer_access, check_lone_file, lone_bytes},
};

static int is_atomicity_case(const struct scenario *s)
{
    return s->access == atomicity_access || s->access == collective_access;
}

/* ---- the run ---------------------------------------------------------------- */

/* Rank 0 creates the file at its full size, all zeros (the test's initial state),
 * before anyone opens it. Plain POSIX: not part of what is measured. */
static void create_file(struct run *run)
{
    if (world_rank == 0) {
        int fd = open(run->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ftruncate(fd, (off_t)run->o->scenario->file_bytes(run->o)) != 0 ||
            close(fd) != 0)
            die("creating %s: %s", run->path, strerror(errno));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* What the open file's info says about the lock, or "" if nothing: piox reports
 * the lock it uses there; stock MPI-IO drops hints it does not know. */
static void reported_lock(MPI_File fh, char *value, int size)
{
    MPI_Info info;
    int found = 0;
    value[0] = '\0';
    check_mpi(MPI_File_get_info(fh, &info), "MPI_File_get_info");
    MPI_Info_get(info, LOCK_HINT, size - 1, value, &found);
    if (!found)
        value[0] = '\0';
    MPI_Info_free(&info);
}

static double timed_iterations(void *state, uint64_t count)
{
    struct run *run = state;
    const double start = MPI_Wtime();
    for (uint64_t i = 0; i < count; i++) {
        run->o->scenario->access(run);
        run->iterations_done++;
    }
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* The closed file, read whole by every rank, then checked by the case. */
static void check_file(struct run *run)
{
    const uint64_t expected = run->o->scenario->file_bytes(run->o);
    struct stat st;
    int fd = open(run->path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0)
        die("reading back %s: %s", run->path, strerror(errno));
    if ((uint64_t)st.st_size != expected) {
        fail(run, "file size %llu bytes, expected %llu", (unsigned long long)st.st_size,
             (unsigned long long)expected);
        close(fd);
        return;
    }
    unsigned char *file = malloc(expected ? expected : 1);
    if (file == NULL)
        die("out of memory");
    if (pread(fd, file, expected, 0) != (ssize_t)expected)
        die("reading back %s: short read", run->path);
    close(fd);
    run->o->scenario->check_file(run, file, expected);
    free(file);
}

/* The JSON line: case, MPI library, whether libpiox was loaded, the lock the file's
 * info reports (piox_atomic_lock; null when absent), the hints passed, ranks, bytes
 * per access and rank, timed iterations, warm-up iterations; us_per_access: mean
 * over ranks of a rank's time inside its MPI calls per access (figure 8 of the
 * paper: average time per process); us_per_access_max: the slowest rank's;
 * us_per_iteration: the slowest rank's wall time per iteration; mb_per_s: bytes
 * written and read by all ranks per second of the slowest rank (MB = 1e6 B); in
 * the atomicity cases, reads and the fraction of reads that saw a newer version
 * than the reader's previous read (0 means the readers never overlapped a write);
 * "check": "ok". */
static void print_result(struct run *run, const char *lock, const char *hints,
                         uint64_t iterations, uint64_t warmup, double slowest_seconds)
{
    double mean_access = 0, max_access = 0;
    const double mine = run->access_seconds / (double)iterations;
    MPI_Reduce(&mine, &mean_access, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &max_access, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t counts[2] = {run->reads, run->reads_of_new_data}, totals[2] = {0, 0};
    MPI_Reduce(counts, totals, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank != 0)
        return;
    const uint64_t bytes = run->o->scenario->bytes_per_access(run->o);
    mean_access /= world_size;
    printf("{\"case\": \"%s\", \"mpi\": \"%s\", \"piox\": %s, \"atomic_lock\": ",
           run->o->scenario->name, mpi_name(), piox_loaded() ? "true" : "false");
    printf(lock[0] ? "\"%s\"" : "null", lock);
    printf(", \"hints\": \"%s\", \"ranks\": %d, \"bytes_per_access\": %llu, \"iterations\": %llu, "
           "\"warmup_iterations\": %llu, \"us_per_access\": %.4f, \"us_per_access_max\": %.4f, "
           "\"us_per_iteration\": %.4f, \"mb_per_s\": %.4f",
           hints, world_size, (unsigned long long)bytes, (unsigned long long)iterations,
           (unsigned long long)warmup, mean_access * 1e6, max_access * 1e6,
           slowest_seconds / (double)iterations * 1e6,
           (double)bytes * world_size * (double)iterations / slowest_seconds / 1e6);
    if (is_atomicity_case(run->o->scenario))
        printf(", \"reads\": %llu, \"reads_of_new_data\": %.4f", (unsigned long long)totals[0],
               totals[0] ? (double)totals[1] / (double)totals[0] : 0.0);
    printf(", \"check\": \"ok\"}\n");
    fflush(stdout);
}

static void usage(void)
{
    if (world_rank == 0)
        fprintf(stderr, "usage: atomic atomicity_contig|atomicity_noncontig|atomicity_block|"
                        "atomicity_collective|"
                        "disjoint_writers|"
                        "lone_writer DIRECTORY [--ints N] [--block BYTES] [--blocks N] "
                        "[--budget SECONDS] [--warmup SECONDS] [--max-iterations N] "
                        "[--hint KEY=VALUE]...\n");
    MPI_Finalize();
    exit(2);
}

static struct options parse_options(int argc, char **argv, char *hints, size_t hints_size)
{
    struct options o = {NULL, NULL, 10000, 1024, 8, 16, 0.5, 0.1, 1000000, MPI_INFO_NULL};
    if (argc < 3 || (argc - 3) % 2 != 0)
        usage();
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (strcmp(argv[1], scenarios[i].name) == 0)
            o.scenario = &scenarios[i];
    o.directory = argv[2];
    MPI_Info_create(&o.info);
    hints[0] = '\0';
    for (int i = 3; i + 1 < argc; i += 2) {
        const char *flag = argv[i], *value = argv[i + 1];
        if (strcmp(flag, "--ints") == 0)
            o.ints = atoi(value);
        else if (strcmp(flag, "--block") == 0)
            o.block = atoi(value);
        else if (strcmp(flag, "--blocks") == 0)
            o.blocks = atoi(value);
        else if (strcmp(flag, "--budget") == 0)
            o.budget = atof(value);
        else if (strcmp(flag, "--warmup") == 0)
            o.warmup = atof(value);
        else if (strcmp(flag, "--max-iterations") == 0)
            o.max_iterations = strtoull(value, NULL, 10);
        else if (strcmp(flag, "--hint") == 0) {
            char key[MPI_MAX_INFO_KEY + 1];
            const char *equals = strchr(value, '=');
            if (equals == NULL || equals == value || equals - value > MPI_MAX_INFO_KEY)
                usage();
            snprintf(key, sizeof key, "%.*s", (int)(equals - value), value);
            MPI_Info_set(o.info, key, equals + 1);
            snprintf(hints + strlen(hints), hints_size - strlen(hints), "%s%s",
                     hints[0] ? " " : "", value);
        } else
            usage();
    }
    /* The writers' tags fill each block: 8-byte words, or 4-byte ones (one int each). */
    if (o.scenario == NULL || o.ints < 1 || o.block < 4 || o.block % 4 != 0 || o.blocks < 1 ||
        o.max_iterations < 1 || o.budget <= 0)
        usage();
    o.tag_bytes = o.block % 8 == 0 ? 8 : 4;
    if (o.tag_bytes == 4 && world_size > 254) {
        if (world_rank == 0)
            fprintf(stderr, "atomic: 4-byte tags have room for 254 ranks\n");
        MPI_Finalize();
        exit(2);
    }
    if (is_atomicity_case(o.scenario) && world_size < 2) {
        if (world_rank == 0)
            fprintf(stderr, "atomic: %s needs 2 ranks or more (a writer and readers)\n",
                    o.scenario->name);
        MPI_Finalize();
        exit(2);
    }
    return o;
}

int main(int argc, char **argv)
{
    bench_program = "atomic";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    char hints[1024];
    struct options o = parse_options(argc, argv, hints, sizeof hints);
    const struct scenario *s = o.scenario;

    struct run run = {&o, MPI_FILE_NULL, "", NULL, 0, 0, 0, 0, 0, 0, 0, ""};
    run.count = is_atomicity_case(s) ? o.ints : (int)s->bytes_per_access(&o);
    run.buffer = malloc(s->bytes_per_access(&o));
    if (run.buffer == NULL)
        die("out of memory");

    /* A name no concurrent run on this node shares: rank 0's pid. */
    long unique = (long)getpid();
    MPI_Bcast(&unique, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(run.path, sizeof run.path, "%s/atomic.%ld.%s.dat", o.directory, unique, s->name);
    create_file(&run);

    check_mpi(MPI_File_open(MPI_COMM_WORLD, run.path, MPI_MODE_RDWR, o.info, &run.fh),
              "MPI_File_open");
    check_mpi(MPI_File_set_atomicity(run.fh, 1), "MPI_File_set_atomicity");
    MPI_Datatype filetype = MPI_DATATYPE_NULL;
    s->set_view(&run, &filetype);
    char lock[MPI_MAX_INFO_VAL + 1];
    reported_lock(run.fh, lock, sizeof lock);
    int atomic = 0;
    check_mpi(MPI_File_get_atomicity(run.fh, &atomic), "MPI_File_get_atomicity");
    if (!atomic)
        die("MPI_File_get_atomicity says atomic mode is off after set_atomicity(fh, 1)");

    double per_iteration = 0;
    const uint64_t warmup = calibrate(timed_iterations, &run, o.warmup, o.max_iterations,
                                      &per_iteration);
    uint64_t iterations = o.max_iterations;
    if (per_iteration > 0 && o.budget / per_iteration < (double)iterations)
        iterations = o.budget / per_iteration < 3 ? 3 : (uint64_t)(o.budget / per_iteration);
    run.access_seconds = 0;
    run.reads = run.reads_of_new_data = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double slowest = timed_iterations(&run, iterations);
    /* The timed loop lasts at least half the budget. The warm-up's estimate may come
     * from a round that lost a time slice, and calls that then run a hundred times
     * faster would make the loop last a millisecond: too short to stand for the run. */
    while (slowest < o.budget / 2 && iterations < o.max_iterations) {
        const uint64_t more = o.max_iterations - iterations < iterations
                                  ? o.max_iterations - iterations : iterations;
        slowest += timed_iterations(&run, more);
        iterations += more;
    }

    check_mpi(MPI_File_close(&run.fh), "MPI_File_close");
    run.final_version = run.version;
    MPI_Bcast(&run.final_version, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&filetype);
    check_file(&run);

    /* Every rank's first problem, in rank order, then one verdict for all. */
    int failed = run.problem[0] != '\0', any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed)
        fprintf(stderr, "atomic: %s, rank %d: %s\n", s->name, world_rank, run.problem);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0)
        unlink(run.path);
    if (any_failed) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    print_result(&run, lock, hints, iterations, warmup, slowest);

    MPI_Info_free(&o.info);
    free(run.buffer);
    MPI_Finalize();
    return 0;
}
