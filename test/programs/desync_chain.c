/*
 * desync_chain E VERSIONS R SEED OUTPUT [--window W] [--chunks SPEC] [--delay-us MAX]
 *              [--slow RANK:FACTOR] [--rebalance K] [--hint KEY=VALUE]...
 *
 * A small 1-D application on libdesync for the garbage collector's tests (issue 18):
 * one file of E blocks per version; block (v, x) is made from blocks (v - 1, x - R ..
 * x + R) inside the file (version 0 from nothing). Each block is 4 uint64, a hash of
 * its address and its inputs (chain_value below; test_desync_gc.py has the same
 * function), so that a wrong input anywhere changes the last version.
 *
 * The schedule is random: each block's compute sleeps a random 0 .. MAX microseconds
 * (default 200) from a generator seeded with SEED and the rank, so that ranks run
 * ahead of and behind each other differently for every seed. --slow makes one rank's
 * sleeps FACTOR times as long: a laggard whose chunks rechunking should shrink.
 *
 * Before reading an input, appCompute checks that desynchBlockExists says it exists;
 * a read that fails (a block freed too early and not made again) is reported, and
 * the job fails. The last version goes to OUTPUT (E * 4 uint64, native order).
 * Every rank prints one line:
 *   desync_chain rank=r owned=.. computed=.. recomputed=.. freed=.. peak_resident=..
 *   resident_at_end=.. lost=.. taken_over=..
 * Exit status 0, 2 for bad arguments, 1 when the job failed.
 */
#include "desync.h"
#include "desync_line.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 4

static unsigned delay_max_us = 200;
static long slow_rank = -1, slow_factor = 1;
static unsigned random_state;
static MPI_File output;
static int rank, failed_reads, output_failed;

static uint64_t chain_start(int v, int x, int k)
{
    return (uint64_t)v * 0x9E3779B97F4A7C15ull + (uint64_t)x * 0xBF58476D1CE4E5B9ull + (uint64_t)k;
}

static uint64_t chain_mix(uint64_t h, uint64_t input)
{
    return (h ^ input) * 0x100000001B3ull;
}

static void compute(const blockaddr *b, const chunkdesc *file)
{
    (void)file;
    int v = b->dims[1], x = b->dims[2];
    uint64_t *out = desynchBlockMake(WORDS * sizeof(uint64_t));
    if (!out)
        return;
    for (int k = 0; k < WORDS; k++)
        out[k] = chain_start(v, x, k);
    for (long y = x - line_radius; v > 0 && y <= x + line_radius; y++) {
        if (y < 0 || y >= line_blocks)
            continue;
        int dims[3] = {0, v - 1, (int)y};
        blockaddr in = {3, dims};
        const void *data;
        size_t len;
        rd_handle h = desynchBlockExists(&in) ? desynchBlockRead(&in, &data, &len) : NULL;
        if (!h || len != WORDS * sizeof(uint64_t)) {
            fprintf(stderr, "desync_chain rank %d: input (%d, %ld) of (%d, %d): %s\n", rank, v - 1, y, v, x,
                    h ? "wrong length" : desynch_Last_message());
            failed_reads++;
            return; /* unwritten: the runtime ends the job */
        }
        for (int k = 0; k < WORDS; k++)
            out[k] = chain_mix(out[k], ((const uint64_t *)data)[k]);
        desynchBlockFree(h);
    }
    unsigned us = delay_max_us ? (unsigned)rand_r(&random_state) % (delay_max_us + 1) : 0;
    if (rank == slow_rank)
        us *= (unsigned)slow_factor;
    struct timespec pause = {0, (long)us * 1000};
    nanosleep(&pause, NULL);
    if (desynchBlockWrite(b, out, WORDS * sizeof(uint64_t)) != DESYNC_SUCCESS)
        fprintf(stderr, "desync_chain rank %d: %s\n", rank, desynch_Last_message());
}

static void result(const blockaddr *b, const void *data, size_t len)
{
    MPI_Offset at = (MPI_Offset)b->dims[2] * WORDS * (MPI_Offset)sizeof(uint64_t);
    output_failed |= MPI_File_write_at(output, at, data, (int)len, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS;
}

static long number(const char *text)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    return *text && !*end && value >= 0 ? value : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long versions = argc > 5 ? number(argv[2]) : -1, seed = argc > 5 ? number(argv[4]) : -1;
    line_blocks = argc > 5 ? number(argv[1]) : -1;
    line_radius = argc > 5 ? number(argv[3]) : -1;
    MPI_Info info;
    MPI_Info_create(&info);
    int bad = line_blocks < 1 || versions < 1 || line_radius < 0 || seed < 0;
    for (int i = 6; i < argc && !bad; i += 2) {
        if (i + 1 >= argc)
            bad = 1;
        else if (!strcmp(argv[i], "--window"))
            MPI_Info_set(info, "desync_window", argv[i + 1]);
        else if (!strcmp(argv[i], "--chunks"))
            MPI_Info_set(info, "desync_chunks", argv[i + 1]);
        else if (!strcmp(argv[i], "--rebalance"))
            MPI_Info_set(info, "desync_rebalance", argv[i + 1]);
        else if (!strcmp(argv[i], "--delay-us") && number(argv[i + 1]) >= 0)
            delay_max_us = (unsigned)number(argv[i + 1]);
        else if (!strcmp(argv[i], "--slow") && sscanf(argv[i + 1], "%ld:%ld", &slow_rank, &slow_factor) == 2 &&
                 slow_rank >= 0 && slow_factor >= 1 && slow_factor <= 1000)
            continue;
        else if (!strcmp(argv[i], "--hint") && strchr(argv[i + 1], '=') > argv[i + 1]) {
            char key[MPI_MAX_INFO_KEY + 1];
            const char *eq = strchr(argv[i + 1], '=');
            snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i + 1]), argv[i + 1]);
            MPI_Info_set(info, key, eq + 1);
        } else
            bad = 1;
    }
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: desync_chain E VERSIONS R SEED OUTPUT [--window W] [--chunks SPEC] "
                            "[--delay-us MAX] [--slow RANK:FACTOR] [--rebalance K] [--hint KEY=VALUE]...\n");
        MPI_Info_free(&info);
        MPI_Finalize();
        return 2;
    }
    random_state = (unsigned)(seed * 7919 + rank);
    char files[64];
    snprintf(files, sizeof files, "0:%ld:%ld", versions, line_blocks);
    MPI_Info_set(info, "desync_files", files);
    int rc = MPI_File_open(MPI_COMM_WORLD, argv[5], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &output);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "desync_chain: cannot open %s\n", argv[5]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    desynch_app app = {line_deps, compute, line_iter_init, line_iter_next, line_iter_done, result};
    desynch_stats s = {0};
    rc = desynch_Run(MPI_COMM_WORLD, info, &app, &s);
    if (rc != DESYNC_SUCCESS)
        fprintf(stderr, "desync_chain rank %d: %s\n", rank, desynch_Last_message());
    MPI_File_close(&output);
    MPI_Info_free(&info);
    printf("desync_chain rank=%d owned=%lld computed=%lld recomputed=%lld freed=%lld peak_resident=%lld "
           "resident_at_end=%lld lost=%lld taken_over=%lld\n",
           rank, s.owned, s.computed, s.recomputed, s.freed, s.peak_resident, s.resident_at_end, s.lost,
           s.taken_over);
    int failed = rc != DESYNC_SUCCESS || failed_reads || output_failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
