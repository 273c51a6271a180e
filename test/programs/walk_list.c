/*
 * walk_list.c - runs one PFTW_Walk and records every visited entry, for the tests
 * to compare with find(1).
 *
 *   walk_list ROOT OUT [KEY=VALUE ...] [--stop-after N] [--slow-rank R:MICROS]
 *             [--skip NAME] [--single] [--expect CODE]
 *
 * KEY=VALUE are pftw_* hints. Each rank writes OUT.RANK: one record per entry it
 * visited, "TYPE\tDEPTH\tERRNO\tSIZE\tTHREAD\tPATH\0" (SIZE is - without a stat).
 * --stop-after N: visit returns PFTW_STOP at this rank's Nth entry.
 * --slow-rank R:MICROS: on rank R, each visit sleeps MICROS microseconds.
 * --skip NAME: visit returns PFTW_SKIP_SUBTREE for directories named NAME.
 * --single: MPI_Init_thread with MPI_THREAD_SINGLE (default: MPI_THREAD_FUNNELED).
 * Rank 0 prints one JSON line: the return code and the statistics, with every
 * rank's item count. Exits 0 when PFTW_Walk returned --expect (default 0).
 */
#include <pftw.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 64

struct buffer {
    char *data;
    size_t used, capacity;
};

static struct buffer records[MAX_THREADS];
static long stop_after = -1, visited_here;
static int slow_micros;
static const char *skip_name;

static void append(struct buffer *b, const char *data, size_t n)
{
    if (b->used + n > b->capacity) {
        b->capacity = (b->used + n) * 2 + 4096;
        b->data = realloc(b->data, b->capacity);
        if (!b->data)
            abort();
    }
    memcpy(b->data + b->used, data, n);
    b->used += n;
}

static int visit(const PFTW_Entry *entry, void *extra)
{
    (void)extra;
    char head[128];
    int n;
    if (entry->st)
        n = snprintf(head, sizeof head, "%d\t%d\t%d\t%lld\t%d\t", (int)entry->type, entry->depth, entry->error,
                     (long long)entry->st->st_size, entry->thread);
    else
        n = snprintf(head, sizeof head, "%d\t%d\t%d\t-\t%d\t", (int)entry->type, entry->depth, entry->error,
                     entry->thread);
    struct buffer *b = &records[entry->thread % MAX_THREADS];
    append(b, head, (size_t)n);
    append(b, entry->path, entry->path_length + 1);
    if (slow_micros)
        usleep((useconds_t)slow_micros);
    if (stop_after > 0 && __atomic_add_fetch(&visited_here, 1, __ATOMIC_RELAXED) == stop_after)
        return PFTW_STOP;
    if (skip_name && entry->type == PFTW_TYPE_DIR && strcmp(entry->path + entry->name_offset, skip_name) == 0)
        return PFTW_SKIP_SUBTREE;
    return PFTW_CONTINUE;
}

int main(int argc, char **argv)
{
    int provided, rank, size, expect = PFTW_SUCCESS, single = 0;
    for (int i = 1; i < argc; i++)
        single |= !strcmp(argv[i], "--single");
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: %s ROOT OUT [KEY=VALUE ...] [options]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!strcmp(argv[i], "--stop-after") && i + 1 < argc) {
            stop_after = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--slow-rank") && i + 1 < argc) {
            int slow_rank = atoi(argv[++i]);
            const char *colon = strchr(argv[i], ':');
            if (slow_rank == rank && colon)
                slow_micros = atoi(colon + 1);
        } else if (!strcmp(argv[i], "--skip") && i + 1 < argc) {
            skip_name = argv[++i];
        } else if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
            expect = atoi(argv[++i]);
        } else if (eq) {
            *eq = '\0';
            MPI_Info_set(info, argv[i], eq + 1);
        }
    }
    PFTW_Stats stats;
    int code = PFTW_Walk(MPI_COMM_WORLD, argv[1], info, visit, NULL, &stats);
    MPI_Info_free(&info);

    char name[4096];
    snprintf(name, sizeof name, "%s.%d", argv[2], rank);
    FILE *out = fopen(name, "wb");
    for (int t = 0; t < MAX_THREADS; t++) {
        if (out && records[t].used)
            fwrite(records[t].data, 1, records[t].used, out);
        free(records[t].data);
    }
    if (out)
        fclose(out);

    unsigned long long items = stats.items, *all = rank == 0 ? malloc(sizeof *all * size) : NULL;
    MPI_Gather(&items, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    unsigned long long rounds = stats.token_rounds, fruitful = stats.requests_fruitful, sums[2];
    unsigned long long mine[2] = {fruitful, stats.requests_unfruitful};
    MPI_Reduce(mine, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("{\"code\": %d, \"error\": \"%s\", \"entries\": %llu, \"directories\": %llu, \"files\": %llu, "
               "\"symlinks\": %llu, \"others\": %llu, \"bytes\": %llu, \"errors\": %llu, \"seconds\": %.6f, "
               "\"messages\": %llu, \"message_bytes\": %llu, \"items_max\": %llu, \"token_rounds\": %llu, "
               "\"requests_fruitful\": %llu, \"requests_unfruitful\": %llu, \"items\": [",
               code, PFTW_Error_string(code), (unsigned long long)stats.entries,
               (unsigned long long)stats.directories, (unsigned long long)stats.files,
               (unsigned long long)stats.symlinks, (unsigned long long)stats.others,
               (unsigned long long)stats.bytes, (unsigned long long)stats.errors, stats.seconds,
               (unsigned long long)stats.messages, (unsigned long long)stats.message_bytes,
               (unsigned long long)stats.items_max, rounds, sums[0], sums[1]);
        for (int r = 0; r < size; r++)
            printf("%s%llu", r ? ", " : "", all[r]);
        printf("]}\n");
        free(all);
    }
    PFTW_Stats_free(&stats);
    MPI_Finalize();
    return code == expect ? 0 : 1;
}
