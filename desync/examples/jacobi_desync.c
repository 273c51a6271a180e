/*
 * jacobi_desync N B VERSIONS OUTPUT [--cost-us C] [--laggard RANK:FACTOR]...
 *               [--chunks SPEC] [--window W] [--rebalance K] [--balance misses|throughput]
 *               [--hint KEY=VALUE]... (any other desync_* hint)
 *
 * The Jacobi solver of issue 18 through DesyncFS's callbacks: the same N x N grid,
 * kernel (jacobi_kernel.h) and laggard schedule (laggard.h) as its plain-MPI twin,
 * jacobi_mpi, whose final grid it must equal bit for bit.
 *
 * One file, 0, of VERSIONS + 1 versions (0: the interior at zero) and (N/B)^2 blocks
 * of B x B doubles, row-major: block (0, v, bi, bj) holds points (bi*B + r, bj*B + c)
 * after v steps. A block of version v is made from the same block and its four
 * neighbours of version v - 1; outside the grid the boundary ring's values are used.
 * Chunks (--chunks, desync_chunks): a q x q grid when the ranks are q^2, as the twin's
 * squares; else the runtime's bisection.
 *
 * Each block's compute region ends at its start plus C microseconds times the
 * rank's laggard factor (laggard.h), as the twin's per-block cost; version 0 (the
 * initial grid, which the twin sets before it starts its clock) costs nothing.
 *
 * The last version goes to OUTPUT (N*N doubles, row-major, native byte order) from
 * appResult, each block's rows written where they belong. Rank 0 prints:
 *   jacobi_desync ranks=P n=N block=B versions=V seconds=S cpu=C computed=..
 *   hits=.. misses=.. requests=.. pushed=.. freed=.. peak_resident=..
 *   rate_before=.. rate_after=..
 * S the slowest rank's time in desynch_Run, C the CPU seconds of all ranks in it,
 * the counts summed over ranks, peak_resident the largest of any rank, and the
 * blocks per second over the second quarter of the versions (before a rechunk at
 * half-way) and over the last quarter (after it). Exit status 0, 2 for bad arguments, 1 when
 * the run fails (its message on stderr).
 */
#include "desync.h"
#include "jacobi_kernel.h"
#include "jacobi_options.h"
#include "laggard.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
static struct jacobi_options o;
static long blocks_per_side;
static MPI_File output;
static int output_failed;
static struct laggard_clock schedule;
static double *ring; /* (B + 2)^2 doubles: a block and its halo, for compute */
static double *version_done; /* per version: when this process made its last block of it */

static int inside(long bi, long bj)
{
    return bi >= 0 && bj >= 0 && bi < blocks_per_side && bj < blocks_per_side;
}

/* The five blocks of version v - 1 that (v, bi, bj) is made from, or the five of
 * version v + 1 made from it: itself and its neighbours, those inside the grid. */
static int dep_list(const blockaddr *b, const chunkdesc *file, baddrslist *list, int dir)
{
    static const int near[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    int v = b->dims[1] + (dir == DESYNCH_FORWARD ? 1 : -1);
    list->num = 0;
    if (v < file->dims[1].min || v > file->dims[1].max)
        return 1;
    if (list->maxnum < 5) {
        list->num = 5;
        return 1;
    }
    for (int k = 0; k < 5; k++) {
        int bi = b->dims[2] + near[k][0], bj = b->dims[3] + near[k][1];
        if (!inside(bi, bj))
            continue;
        int *d = list->baddrs[list->num++].dims;
        d[0] = 0, d[1] = v, d[2] = bi, d[3] = bj;
    }
    return 1;
}

/* A block of the previous version into *data (NULL outside the grid), its handle to
 * free; 0, or -1 when the read failed (said on stderr). */
static int previous(int v, long bi, long bj, const double **data, rd_handle *handle)
{
    *handle = NULL;
    *data = NULL;
    if (!inside(bi, bj))
        return 0;
    int dims[4] = {0, v - 1, (int)bi, (int)bj};
    blockaddr a = {4, dims};
    const void *bytes = NULL;
    size_t len = 0;
    *handle = desynchBlockRead(&a, &bytes, &len);
    if (!*handle || len != (size_t)(o.block * o.block) * sizeof(double)) {
        fprintf(stderr, "jacobi_desync (rank %d): reading block (%d, %ld, %ld): %s\n", rank, v - 1, bi, bj,
                *handle ? "wrong length" : desynch_Last_message());
        return -1;
    }
    *data = bytes;
    return 0;
}

static void compute(const blockaddr *b, const chunkdesc *file)
{
    (void)file;
    int v = b->dims[1];
    long bi = b->dims[2], bj = b->dims[3], B = o.block, n = o.n;
    int64_t start = laggard_begin(&schedule);
    double *out = desynchBlockMake((size_t)(B * B) * sizeof(double));
    if (!out)
        return;
    if (v == 0) {
        memset(out, 0, (size_t)(B * B) * sizeof(double)); /* the interior starts at 0 */
    } else {
        rd_handle h[5];
        const double *self, *up, *down, *left, *right;
        int bad = previous(v, bi, bj, &self, &h[0]) | previous(v, bi - 1, bj, &up, &h[1]) |
                  previous(v, bi + 1, bj, &down, &h[2]) | previous(v, bi, bj - 1, &left, &h[3]) |
                  previous(v, bi, bj + 1, &right, &h[4]);
        if (bad) { /* not written: the runtime ends the job, saying which block */
            for (int k = 0; k < 5; k++)
                if (h[k])
                    desynchBlockFree(h[k]);
            return;
        }
        /* The block inside a ring of its neighbours' edges (or the boundary's values),
         * then the twin's loop over it: the same sums in the same order. */
        long w = B + 2;
        for (long r = 0; r < B; r++) {
            memcpy(&ring[(r + 1) * w + 1], &self[r * B], (size_t)B * sizeof(double));
            ring[(r + 1) * w] = left ? left[r * B + B - 1] : jacobi_boundary(bi * B + r, bj * B - 1, n);
            ring[(r + 1) * w + B + 1] = right ? right[r * B] : jacobi_boundary(bi * B + r, bj * B + B, n);
        }
        for (long c = 0; c < B; c++) {
            ring[1 + c] = up ? up[(B - 1) * B + c] : jacobi_boundary(bi * B - 1, bj * B + c, n);
            ring[(B + 1) * w + 1 + c] = down ? down[c] : jacobi_boundary(bi * B + B, bj * B + c, n);
        }
        for (long r = 0; r < B; r++)
            for (long c = 0; c < B; c++)
                out[r * B + c] = jacobi_point(ring[r * w + c + 1], ring[(r + 2) * w + c + 1], ring[(r + 1) * w + c],
                                              ring[(r + 1) * w + c + 2]);
        for (int k = 0; k < 5; k++)
            if (h[k])
                desynchBlockFree(h[k]);
    }
    if (o.cost_ns && v > 0) /* version 0 is the initial grid, not a step */
        laggard_wait(&schedule, start, 1, o.cost_ns, o.factor);
    if (desynchBlockWrite(b, out, (size_t)(B * B) * sizeof(double)) != DESYNC_SUCCESS)
        fprintf(stderr, "jacobi_desync (rank %d): %s\n", rank, desynch_Last_message());
    double now = MPI_Wtime();
    if (now > version_done[v])
        version_done[v] = now;
}

/* Iterator over a chunk's blocks, row by row. */
struct cursor {
    int version, bi0, bi1, bj0, bj1, bi, bj;
};

static void *iter_init(const chunkdesc *chunk)
{
    struct cursor *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = (struct cursor){chunk->dims[1].min, chunk->dims[2].min, chunk->dims[2].max, chunk->dims[3].min,
                         chunk->dims[3].max, chunk->dims[2].min, chunk->dims[3].min};
    return c;
}

static int iter_next(void *iter, blockaddr *b)
{
    struct cursor *c = iter;
    if (!c || c->bi > c->bi1)
        return 0;
    b->numdims = 4;
    b->dims[0] = 0, b->dims[1] = c->version, b->dims[2] = c->bi, b->dims[3] = c->bj;
    if (++c->bj > c->bj1)
        c->bj = c->bj0, c->bi++;
    return 1;
}

static void iter_done(void *iter)
{
    free(iter);
}

/* A block of the last version: its rows to their places in OUTPUT. */
static void result(const blockaddr *b, const void *data, size_t len)
{
    long B = o.block, bi = b->dims[2], bj = b->dims[3];
    const double *rows = data;
    (void)len;
    for (long r = 0; r < B && !output_failed; r++) {
        MPI_Offset at = (MPI_Offset)(((bi * B + r) * o.n + bj * B) * (long)sizeof(double));
        output_failed = MPI_File_write_at(output, at, rows + r * B, (int)B, MPI_DOUBLE, MPI_STATUS_IGNORE) !=
                        MPI_SUCCESS;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int status = jacobi_parse(argc, argv, "jacobi_desync", rank, nprocs, 1, &o);
    if (!status && o.n % o.block != 0)
        status = jacobi_fail("jacobi_desync", rank, "N must be a multiple of B");
    if (status) {
        MPI_Finalize();
        return status;
    }
    blocks_per_side = o.n / o.block;
    ring = malloc((size_t)((o.block + 2) * (o.block + 2)) * sizeof(double));
    version_done = calloc((size_t)o.versions + 1, sizeof(double));
    if (!ring || !version_done) {
        fprintf(stderr, "jacobi_desync: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int q = (int)lround(sqrt((double)nprocs));
    char files[64], grid[32];
    snprintf(files, sizeof files, "0:%ld:%ldx%ld", o.versions + 1, blocks_per_side, blocks_per_side);
    snprintf(grid, sizeof grid, "grid:%dx%d", q, q);
    const char *chunks = o.chunks ? o.chunks : q * q == nprocs && q <= blocks_per_side ? grid : "bisect";
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "desync_files", files);
    MPI_Info_set(info, "desync_chunks", chunks);
    if (o.window)
        MPI_Info_set(info, "desync_window", o.window);
    if (o.rebalance)
        MPI_Info_set(info, "desync_rebalance", o.rebalance);
    if (o.balance)
        MPI_Info_set(info, "desync_balance", o.balance);
    for (int h = 0; h < o.nhints; h++) {
        char key[MPI_MAX_INFO_KEY + 1];
        const char *eq = strchr(o.hints[h], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - o.hints[h]), o.hints[h]);
        MPI_Info_set(info, key, eq + 1);
    }

    int rc = MPI_File_open(MPI_COMM_WORLD, o.output, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &output);
    if (rc == MPI_SUCCESS && (rc = MPI_File_set_size(output, 0)) != MPI_SUCCESS) /* no older tail */
        MPI_File_close(&output);
    if (rc != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "jacobi_desync: cannot open %s\n", o.output);
        MPI_Info_free(&info);
        MPI_Finalize();
        return 1;
    }
    desynch_app app = {dep_list, compute, iter_init, iter_next, iter_done, result};
    desynch_stats stats = {0};
    double cpu_began = laggard_cpu_seconds();
    rc = desynch_Run(MPI_COMM_WORLD, info, &app, &stats);
    double cpu = laggard_cpu_seconds() - cpu_began, cpu_total = 0;
    if (rc != DESYNC_SUCCESS)
        fprintf(stderr, "jacobi_desync (rank %d): %s\n", rank, desynch_Last_message());
    int failed = rc != DESYNC_SUCCESS || output_failed, any = 0;
    MPI_File_close(&output);
    MPI_Info_free(&info);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    long long sums[11] = {stats.computed,   stats.hits,       stats.misses,     stats.requests,
                          stats.pushed,     stats.freed,      stats.recomputed, stats.replicated,
                          stats.duplicates, stats.taken_over, stats.checkpointed},
              total[11];
    long long peak = 0;
    double slowest = 0;
    MPI_Reduce(sums, total, 11, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&stats.peak_resident, &peak, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&stats.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpu_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    /* When each version was complete everywhere (one machine: one clock), and from
     * that the blocks per second of the second quarter of the versions and of the
     * last quarter: with --rebalance at half-way, before and after the new layout. */
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : version_done, version_done, (int)o.versions + 1, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    long quarter = o.versions / 4, per_version = blocks_per_side * blocks_per_side;
    double before = 0, after = 0;
    if (quarter > 0) {
        before = (double)(quarter * per_version) / (version_done[2 * quarter] - version_done[quarter]);
        after = (double)(quarter * per_version) / (version_done[o.versions] - version_done[o.versions - quarter]);
    }
    if (rank == 0 && !any)
        printf("jacobi_desync ranks=%d n=%ld block=%ld versions=%ld seconds=%.6f cpu=%.3f computed=%lld hits=%lld "
               "misses=%lld requests=%lld pushed=%lld freed=%lld peak_resident=%lld rate_before=%.1f "
               "rate_after=%.1f recomputed=%lld replicated=%lld duplicates=%lld lost=%lld taken_over=%lld "
               "checkpointed=%lld resumed_from=%lld\n",
               nprocs, o.n, o.block, o.versions, slowest, cpu_total, total[0], total[1], total[2], total[3],
               total[4], total[5], peak, before, after, total[6], total[7], total[8], stats.lost, total[9],
               total[10], stats.resumed_from);
    free(ring);
    free(version_done);
    MPI_Finalize();
    return any ? 1 : 0;
}
