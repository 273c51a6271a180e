/*
 * shared_fp.c - microseconds per call of a shared-file-pointer append.
 *
 *   shared_fp OPERATION RECORD_BYTES MAX_CALLS DIRECTORY [--budget SECONDS]
 *             [--reps N] [--warmup SECONDS]
 *
 * OPERATION is one of
 *   write_shared   MPI_File_write_shared of one record per call
 *   write_ordered  MPI_File_write_ordered of one record per call (collective)
 *   floor          no MPI-IO: one atomic fetch-and-add on a counter in a
 *                  shared-memory window plus one pwrite() at the fetched offset,
 *                  the irreducible cost of a shared append on one node
 *   combined       the floor with writes combined: each rank stages its record in
 *                  shared memory, and whoever holds the node's writer flag writes
 *                  every staged record, adjacent ones in one pwritev(). Each call
 *                  still returns only once its record is in the file. The test of
 *                  whether a system call per record is really the floor
 *                  (records of up to COMBINED_MAX_RECORD bytes)
 *   write_at       diagnostic: MPI_File_write_at with no shared pointer at all,
 *                  record k of rank r at slot k * ranks + r (the same file): the
 *                  MPI library's own cost per call over pwrite() (at 1 rank; with
 *                  more, the file grows out of order, which costs ext4 extra)
 *
 * Plain C against the MPI standard only, so that the same source builds with any
 * MPI (the bench driver compiles it with MPICH and with Open MPI) and runs with or
 * without libpiox preloaded.
 *
 * Each repetition opens a fresh file in DIRECTORY, warms up, meets at a barrier,
 * times `calls` operations per rank, closes, checks the file and deletes it. The
 * first repetition's warm-up doubles its call count until the cost per call is
 * steady over about --warmup seconds (see calibrate); from that estimate, calls =
 * MAX_CALLS or what fits in --budget seconds over all repetitions, whichever is
 * smaller (no --budget: MAX_CALLS). Later repetitions warm up with as many calls.
 * A repetition's figure is the slowest rank's mean; the result is the median over
 * the --reps repetitions (default 3). Per call, the line also gives the CPU time
 * and context switches of the ranks, which tell sleeping from busy waiting.
 *
 * The check after each repetition: the file's size must be ranks * records *
 * RECORD_BYTES, and (for records of 16 bytes or more) every record starts with a
 * tag naming its writer and sequence number; a checksum of the tags read back
 * must match the tags written, so that a record lost to an overlapping write or a
 * hole is caught. The file is read back in parallel, outside the timed loop.
 *
 * Rank 0 prints one line of JSON on stdout (keys documented at print_result);
 * errors go to stderr and end the run with a non-zero status.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "benchlib.h"

#define MAX_REPS 15
#define TAG_BYTES 16   /* a record's tag: writer rank and sequence number */
#define READ_CHUNK (1 << 20)

/* ---- what is being written to ---------------------------------------------- */

/* The combined operation's staging area: one slot per record in flight. A slot
 * goes FREE -> CLAIMED (its owner fills it) -> STAGED -> WRITTEN (by whoever held
 * the writer flag) -> FREE (its owner has seen it written). */
#define COMBINED_SLOTS 64
#define COMBINED_MAX_RECORD 16384
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_STAGED, SLOT_WRITTEN };

struct staged_record {
    int32_t state;
    int32_t bytes;
    int64_t offset;
    char data[COMBINED_MAX_RECORD];
};

/* The node's shared memory: the floor's counter, then the combined operation's
 * writer flag, ticket counter and slots. */
struct append_area {
    int64_t counter;              /* the shared append offset */
    int32_t writer_flag;          /* combined: 1 while a rank writes the staged records */
    uint64_t next_ticket;         /* combined: which slot a record tries first */
    struct staged_record slots[COMBINED_SLOTS];
};

struct target {
    MPI_File fh;                  /* every operation but the floor */
    uint64_t next_slot;           /* write_at: this rank's next record slot */
    int fd;                       /* floor and combined */
    struct append_area *area;     /* floor and combined, on the node */
};

typedef void (*write_record_fn)(struct target *target, const char *record, int bytes);

static void write_shared_record(struct target *target, const char *record, int bytes)
{
    MPI_Status status;
    check_mpi(MPI_File_write_shared(target->fh, record, bytes, MPI_BYTE, &status),
              "MPI_File_write_shared");
}

static void write_ordered_record(struct target *target, const char *record, int bytes)
{
    MPI_Status status;
    check_mpi(MPI_File_write_ordered(target->fh, record, bytes, MPI_BYTE, &status),
              "MPI_File_write_ordered");
}

static void write_at_record(struct target *target, const char *record, int bytes)
{
    MPI_Status status;
    const MPI_Offset offset = (MPI_Offset)(target->next_slot++ * (uint64_t)world_size +
                                           (uint64_t)world_rank) * bytes;
    check_mpi(MPI_File_write_at(target->fh, offset, record, bytes, MPI_BYTE, &status),
              "MPI_File_write_at");
}

static void floor_record(struct target *target, const char *record, int bytes)
{
    int64_t offset = __atomic_fetch_add(&target->area->counter, bytes, __ATOMIC_ACQ_REL);
    if (pwrite(target->fd, record, (size_t)bytes, (off_t)offset) != bytes)
        die("pwrite at %lld: %s", (long long)offset, strerror(errno));
}

static int compare_staged_offsets(const void *a, const void *b)
{
    int64_t x = (*(struct staged_record *const *)a)->offset;
    int64_t y = (*(struct staged_record *const *)b)->offset;
    return (x > y) - (x < y);
}

/* Writes every record staged on the node, each run of adjacent records in one
 * pwritev(), and marks them written. Called with the writer flag held. */
static void write_staged_records(struct append_area *area, int fd)
{
    struct staged_record *staged[COMBINED_SLOTS];
    int count = 0;
    for (int i = 0; i < COMBINED_SLOTS; i++)
        if (__atomic_load_n(&area->slots[i].state, __ATOMIC_ACQUIRE) == SLOT_STAGED)
            staged[count++] = &area->slots[i];
    qsort(staged, (size_t)count, sizeof staged[0], compare_staged_offsets);
    for (int first = 0, end; first < count; first = end) {
        struct iovec pieces[COMBINED_SLOTS];
        int64_t next_offset = staged[first]->offset;
        size_t run_bytes = 0;
        for (end = first; end < count && staged[end]->offset == next_offset; end++) {
            pieces[end - first].iov_base = staged[end]->data;
            pieces[end - first].iov_len = (size_t)staged[end]->bytes;
            next_offset += staged[end]->bytes;
            run_bytes += (size_t)staged[end]->bytes;
        }
        if (pwritev(fd, pieces, end - first, (off_t)staged[first]->offset) != (ssize_t)run_bytes)
            die("pwritev of %d records at %lld: %s", end - first,
                (long long)staged[first]->offset, strerror(errno));
        for (int i = first; i < end; i++)
            __atomic_store_n(&staged[i]->state, SLOT_WRITTEN, __ATOMIC_RELEASE);
    }
}

static void combined_record(struct target *target, const char *record, int bytes)
{
    struct append_area *area = target->area;
    const int64_t offset = __atomic_fetch_add(&area->counter, bytes, __ATOMIC_ACQ_REL);
    uint64_t ticket = __atomic_fetch_add(&area->next_ticket, 1, __ATOMIC_RELAXED);
    struct staged_record *slot;
    for (;; ticket++) {  /* a slot still in use by an earlier record is skipped */
        slot = &area->slots[ticket % COMBINED_SLOTS];
        int32_t free_state = SLOT_FREE;
        if (__atomic_compare_exchange_n(&slot->state, &free_state, SLOT_CLAIMED, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
    }
    slot->offset = offset;
    slot->bytes = bytes;
    memcpy(slot->data, record, (size_t)bytes);
    __atomic_store_n(&slot->state, SLOT_STAGED, __ATOMIC_RELEASE);
    while (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) != SLOT_WRITTEN) {
        if (__atomic_exchange_n(&area->writer_flag, 1, __ATOMIC_ACQUIRE) == 0) {
            write_staged_records(area, target->fd);
            __atomic_store_n(&area->writer_flag, 0, __ATOMIC_RELEASE);
        } else {
            sched_yield();  /* ranks outnumber cores here: let the writer run */
        }
    }
    __atomic_store_n(&slot->state, SLOT_FREE, __ATOMIC_RELEASE);
}

static const struct operation {
    const char *name;
    write_record_fn write_record;
    int uses_mpi_io;
} operations[] = {
    {"write_shared", write_shared_record, 1},
    {"write_ordered", write_ordered_record, 1},
    {"floor", floor_record, 0},
    {"combined", combined_record, 0},
    {"write_at", write_at_record, 1},
};

/* The floor's and combined's shared memory, in a window on the node. */
static MPI_Win area_window = MPI_WIN_NULL;

static struct append_area *shared_append_area(void)
{
    MPI_Comm node;
    int node_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    if (node_size != world_size)
        die("the floor needs every rank on one node (%d of %d here)", node_size, world_size);
    if (world_size > COMBINED_SLOTS)  /* a rank has one record in flight: a slot is free */
        die("the floor and combined take at most %d ranks", COMBINED_SLOTS);
    void *base = NULL;
    const MPI_Aint area_bytes = world_rank == 0 ? (MPI_Aint)sizeof(struct append_area) : 0;
    check_mpi(MPI_Win_allocate_shared(area_bytes, 1, MPI_INFO_NULL, node, &base, &area_window),
              "MPI_Win_allocate_shared");
    MPI_Aint bytes;
    int unit;
    check_mpi(MPI_Win_shared_query(area_window, 0, &bytes, &unit, &base),
              "MPI_Win_shared_query");
    MPI_Comm_free(&node);
    if (world_rank == 0)
        memset(base, 0, sizeof(struct append_area));
    MPI_Barrier(MPI_COMM_WORLD);
    return base;
}

static void open_target(const struct operation *op, const char *path, struct target *target)
{
    target->next_slot = 0;
    if (op->uses_mpi_io) {
        check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &target->fh),
                  "MPI_File_open");
        return;
    }
    /* Rank 0 creates (and empties) the file before anyone else opens it. */
    if (world_rank == 0)
        target->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank != 0)
        target->fd = open(path, O_WRONLY);
    if (target->fd < 0)
        die("open %s: %s", path, strerror(errno));
    if (world_rank == 0)
        target->area->counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void close_target(const struct operation *op, struct target *target)
{
    if (op->uses_mpi_io)
        check_mpi(MPI_File_close(&target->fh), "MPI_File_close");
    else if (close(target->fd) != 0)
        die("close: %s", strerror(errno));
}

/* ---- records and their tags ------------------------------------------------- */

static uint64_t record_tag(int rank, uint64_t sequence)
{
    return ((uint64_t)rank << 40) | (sequence + 1);  /* never 0, which a hole reads as */
}

/* splitmix64's finalizer: the checksum adds these, so duplicates do not cancel. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

struct writer {
    const struct operation *op;
    struct target target;
    char *record;
    int record_bytes;
    uint64_t written;     /* records this rank has written to the current file */
    uint64_t tag_sum;     /* sum of mix(tag) over them */
};

static void write_records(struct writer *w, uint64_t count)
{
    const int tagged = w->record_bytes >= TAG_BYTES;
    for (uint64_t i = 0; i < count; i++) {
        if (tagged) {
            uint64_t tag = record_tag(world_rank, w->written);
            memcpy(w->record, &tag, sizeof tag);
            w->tag_sum += mix(tag);
        }
        w->op->write_record(&w->target, w->record, w->record_bytes);
        w->written++;
    }
}

/* What the processes spent, summed over ranks: CPU seconds (user + system) and
 * context switches (voluntary: slept; involuntary: preempted). Tells a busy wait
 * from a sleep, which wall time alone does not when ranks outnumber cores. */
struct usage {
    double cpu_seconds;
    double voluntary_switches;
    double involuntary_switches;
};

static struct usage usage_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct usage u = {(double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                          1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
                      (double)ru.ru_nvcsw, (double)ru.ru_nivcsw};
    return u;
}

/* Seconds the slowest rank takes for `count` records (the same on every rank);
 * adds the ranks' usage during them to *used when it is not NULL. */
static double timed_records(struct writer *w, uint64_t count, struct usage *used)
{
    const struct usage before = usage_now();
    double start = MPI_Wtime();
    write_records(w, count);
    double mine = MPI_Wtime() - start, slowest = 0;
    const struct usage after = usage_now();
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (used != NULL) {
        double spent[3] = {after.cpu_seconds - before.cpu_seconds,
                           after.voluntary_switches - before.voluntary_switches,
                           after.involuntary_switches - before.involuntary_switches};
        double total[3];
        MPI_Allreduce(spent, total, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        used->cpu_seconds += total[0];
        used->voluntary_switches += total[1];
        used->involuntary_switches += total[2];
    }
    return slowest;
}

static double timed_warmup_records(void *writer, uint64_t count)
{
    return timed_records(writer, count, NULL);
}

/* The closed file must hold exactly the records written, each once. Each rank
 * reads back a slice of the records; returns a description of the problem or
 * NULL. */
static const char *check_file(const char *path, const struct writer *w, uint64_t *file_bytes)
{
    static char problem[256];
    uint64_t records = 0, expected_sum = 0;
    MPI_Allreduce(&w->written, &records, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&w->tag_sum, &expected_sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const uint64_t expected_bytes = records * (uint64_t)w->record_bytes;

    struct stat st;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0)
        die("reading back %s: %s", path, strerror(errno));
    *file_bytes = (uint64_t)st.st_size;
    if (*file_bytes != expected_bytes) {
        close(fd);
        snprintf(problem, sizeof problem,
                 "file size %llu bytes, expected %llu (%d ranks x %llu records x %d bytes)",
                 (unsigned long long)*file_bytes, (unsigned long long)expected_bytes,
                 world_size, (unsigned long long)(records / (uint64_t)world_size),
                 w->record_bytes);
        return problem;
    }
    if (w->record_bytes < TAG_BYTES) {
        close(fd);
        return NULL;
    }

    const uint64_t first = records * (uint64_t)world_rank / (uint64_t)world_size;
    const uint64_t end = records * (uint64_t)(world_rank + 1) / (uint64_t)world_size;
    const uint64_t per_chunk = READ_CHUNK / (uint64_t)w->record_bytes + 1;
    char *chunk = malloc(per_chunk * (uint64_t)w->record_bytes);
    if (chunk == NULL)
        die("out of memory");
    uint64_t read_sum = 0;
    for (uint64_t at = first; at < end; at += per_chunk) {
        const uint64_t n = end - at < per_chunk ? end - at : per_chunk;
        const size_t bytes = (size_t)(n * (uint64_t)w->record_bytes);
        if (pread(fd, chunk, bytes, (off_t)(at * (uint64_t)w->record_bytes)) != (ssize_t)bytes)
            die("reading back %s: short read", path);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t tag;
            memcpy(&tag, chunk + i * (uint64_t)w->record_bytes, sizeof tag);
            read_sum += mix(tag);
        }
    }
    free(chunk);
    close(fd);
    uint64_t total_read_sum = 0;
    MPI_Allreduce(&read_sum, &total_read_sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (total_read_sum != expected_sum) {
        snprintf(problem, sizeof problem,
                 "record tags read back do not match those written: some record was "
                 "overwritten or is missing");
        return problem;
    }
    return NULL;
}

/* ---- the run ---------------------------------------------------------------- */

struct options {
    const struct operation *op;
    int record_bytes;
    uint64_t max_calls;
    const char *directory;
    double budget;      /* seconds of timed calls over all repetitions; 0: no limit */
    int reps;
    double warmup;      /* seconds of the first warm-up */
};

static void usage(void)
{
    if (world_rank == 0)
        fprintf(stderr, "usage: shared_fp write_shared|write_ordered|floor|combined|write_at RECORD_BYTES "
                        "MAX_CALLS DIRECTORY [--budget SECONDS] [--reps N] [--warmup SECONDS]\n");
    MPI_Finalize();
    exit(2);
}

static struct options parse_options(int argc, char **argv)
{
    struct options o = {NULL, 0, 0, NULL, 0.0, 3, 0.1};
    if (argc < 5)
        usage();
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++)
        if (strcmp(argv[1], operations[i].name) == 0)
            o.op = &operations[i];
    o.record_bytes = atoi(argv[2]);
    o.max_calls = strtoull(argv[3], NULL, 10);
    o.directory = argv[4];
    for (int i = 5; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--budget") == 0)
            o.budget = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            o.reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--warmup") == 0)
            o.warmup = atof(argv[i + 1]);
        else
            usage();
    }
    if (o.op == NULL || o.record_bytes <= 0 || o.max_calls == 0 || o.reps < 1 ||
        o.reps > MAX_REPS || (argc - 5) % 2 != 0 ||
        (o.op->write_record == combined_record && o.record_bytes > COMBINED_MAX_RECORD))
        usage();
    return o;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The JSON line: operation, MPI library, whether libpiox was loaded, ranks,
 * record bytes, timed calls per rank and repetition, warm-up calls, the median
 * and each repetition's microseconds per call (slowest rank's mean); per call and
 * rank, averaged over the repetitions: CPU microseconds and context switches; the
 * last file's size, and "check": "ok". */
static void print_result(const struct options *o, uint64_t calls, uint64_t warmup_calls,
                         double *us_per_rep, const struct usage *used, uint64_t file_bytes)
{
    const double per_call = 1.0 / ((double)calls * o->reps * world_size);
    const int piox = piox_loaded();
    double sorted[MAX_REPS];
    memcpy(sorted, us_per_rep, sizeof(double) * (size_t)o->reps);
    qsort(sorted, (size_t)o->reps, sizeof(double), compare_doubles);
    const double median = o->reps % 2 ? sorted[o->reps / 2]
                                      : (sorted[o->reps / 2 - 1] + sorted[o->reps / 2]) / 2;
    printf("{\"op\": \"%s\", \"mpi\": \"%s\", \"piox\": %s, \"ranks\": %d, \"record\": %d, "
           "\"calls\": %llu, \"warmup_calls\": %llu, \"us_per_call\": %.4f, \"us_per_rep\": [",
           o->op->name, mpi_name(), piox ? "true" : "false", world_size, o->record_bytes,
           (unsigned long long)calls, (unsigned long long)warmup_calls, median);
    for (int i = 0; i < o->reps; i++)
        printf("%s%.4f", i ? ", " : "", us_per_rep[i]);
    printf("], \"cpu_us_per_call\": %.4f, \"voluntary_switches_per_call\": %.4f, "
           "\"involuntary_switches_per_call\": %.4f, \"file_bytes\": %llu, \"check\": \"ok\"}\n",
           used->cpu_seconds * 1e6 * per_call, used->voluntary_switches * per_call,
           used->involuntary_switches * per_call, (unsigned long long)file_bytes);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bench_program = "shared_fp";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const struct options o = parse_options(argc, argv);

    struct writer w = {o.op, {MPI_FILE_NULL, 0, -1, NULL}, malloc((size_t)o.record_bytes),
                       o.record_bytes, 0, 0};
    if (w.record == NULL)
        die("out of memory");
    memset(w.record, 'a' + world_rank % 26, (size_t)o.record_bytes);
    if (!o.op->uses_mpi_io)
        w.target.area = shared_append_area();

    /* A name no concurrent run on this node shares: rank 0's pid. */
    long unique = (long)getpid();
    MPI_Bcast(&unique, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char path[4096];
    snprintf(path, sizeof path, "%s/shared_fp.%ld.%s.dat", o.directory, unique, o.op->name);

    uint64_t calls = o.max_calls, warmup_calls = 0, file_bytes = 0;
    double us_per_rep[MAX_REPS];
    struct usage used = {0, 0, 0};
    for (int rep = 0; rep < o.reps; rep++) {
        w.written = 0;
        w.tag_sum = 0;
        open_target(o.op, path, &w.target);
        if (rep == 0) {
            double per_call = 0;
            warmup_calls = calibrate(timed_warmup_records, &w, o.warmup, o.max_calls,
                                     &per_call);
            if (o.budget > 0 && per_call > 0) {
                const double fit = o.budget / o.reps / per_call;
                if (fit < (double)calls)  /* even the slowest operation gets 3 calls */
                    calls = fit < 3 ? (calls < 3 ? calls : 3) : (uint64_t)fit;
            }
        } else {
            write_records(&w, warmup_calls);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        us_per_rep[rep] = timed_records(&w, calls, &used) / (double)calls * 1e6;
        close_target(o.op, &w.target);

        const char *problem = check_file(path, &w, &file_bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank == 0)
            unlink(path);
        if (problem != NULL) {  /* every rank found it: rank 0 says so */
            if (world_rank == 0)
                fprintf(stderr, "shared_fp: %s after %s of %d bytes\n", problem, o.op->name,
                        o.record_bytes);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (world_rank == 0)
        print_result(&o, calls, warmup_calls, us_per_rep, &used, file_bytes);

    if (area_window != MPI_WIN_NULL)
        MPI_Win_free(&area_window);
    free(w.record);
    MPI_Finalize();
    return 0;
}
