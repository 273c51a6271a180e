/* jacobi_options.h - the command line that the Jacobi example and its plain-MPI twin
 * share (issue 18), so that a benchmark runs both with the same words:
 *   PROGRAM N B VERSIONS OUTPUT [--cost-us C] [--laggard RANK:FACTOR]...
 * and, for the DesyncFS version only, [--chunks SPEC] [--window W] [--rebalance K]
 * [--balance misses|throughput] (the desync_* hints of those names) and [--hint KEY=VALUE]... (any
 * other hint, e.g. --hint desync_replicate=5). A bad line is said once, by rank 0, and gives status 2. */
#ifndef DESYNC_JACOBI_OPTIONS_H
#define DESYNC_JACOBI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jacobi_options {
    long n, block, versions;
    const char *output;
    int64_t cost_ns;
    double factor;      /* this rank's laggard factor */
    const char *chunks; /* NULL: the program's default */
    const char *window; /* NULL: the runtime's default */
    const char *rebalance, *balance;
    const char *hints[8]; /* --hint KEY=VALUE words, as given */
    int nhints;
};

static int jacobi_fail(const char *program, int rank, const char *what)
{
    if (rank == 0)
        fprintf(stderr, "%s: %s\n", program, what);
    return 2;
}

static long jacobi_positive(const char *text)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    return *text && !*end && value > 0 ? value : -1;
}

/* 0, or 2 after saying what is wrong. desync_options: whether --chunks and --window
 * are words of this program. */
static int jacobi_parse(int argc, char **argv, const char *program, int rank, int nprocs, int desync_options,
                        struct jacobi_options *o)
{
    memset(o, 0, sizeof *o);
    o->factor = 1.0;
    if (argc < 5) {
        char usage[240];
        snprintf(usage, sizeof usage, "usage: %s N B VERSIONS OUTPUT [--cost-us C] [--laggard RANK:FACTOR]...%s",
                 program, desync_options ? " [--chunks SPEC] [--window W] [--rebalance K] [--balance B] [--hint K=V]..." : "");
        return jacobi_fail(program, rank, usage);
    }
    o->n = jacobi_positive(argv[1]);
    o->block = jacobi_positive(argv[2]);
    o->versions = jacobi_positive(argv[3]);
    o->output = argv[4];
    if (o->n < 0 || o->block < 0 || o->versions < 0)
        return jacobi_fail(program, rank, "N, B and VERSIONS must be positive integers");
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--cost-us") && i + 1 < argc) {
            long us = jacobi_positive(argv[++i]);
            if (us < 0)
                return jacobi_fail(program, rank, "--cost-us needs a positive integer");
            o->cost_ns = us * 1000;
        } else if (!strcmp(argv[i], "--laggard") && i + 1 < argc) {
            int who = -1;
            double factor = 0;
            char tail;
            if (sscanf(argv[++i], "%d:%lf%c", &who, &factor, &tail) != 2 || who < 0 || who >= nprocs ||
                !(factor >= 1.0))
                return jacobi_fail(program, rank,
                                   "--laggard needs RANK:FACTOR, a rank of the job and a factor of at least 1");
            if (who == rank)
                o->factor = factor;
        } else if (desync_options && !strcmp(argv[i], "--chunks") && i + 1 < argc) {
            o->chunks = argv[++i];
        } else if (desync_options && !strcmp(argv[i], "--window") && i + 1 < argc) {
            o->window = argv[++i];
        } else if (desync_options && !strcmp(argv[i], "--rebalance") && i + 1 < argc) {
            o->rebalance = argv[++i];
        } else if (desync_options && !strcmp(argv[i], "--balance") && i + 1 < argc) {
            o->balance = argv[++i];
        } else if (desync_options && !strcmp(argv[i], "--hint") && i + 1 < argc) {
            const char *word = argv[++i], *eq = strchr(word, '=');
            if (!eq || eq == word || o->nhints == (int)(sizeof o->hints / sizeof o->hints[0]))
                return jacobi_fail(program, rank, "--hint needs KEY=VALUE (at most 8 of them)");
            o->hints[o->nhints++] = word;
        } else {
            return jacobi_fail(program, rank, "unknown or incomplete option");
        }
    }
    return 0;
}

#endif
