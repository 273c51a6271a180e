/*
 * desync_starpu N B VERSIONS OUTPUT [--cost-us C] [--laggard RANK:FACTOR]...
 *
 * The StarPU-MPI anchor of bench/desync (issue 18, section 6): the Jacobi of
 * desync/examples (jacobi_kernel.h: the same grid, boundary and sums) on Debian's
 * StarPU-MPI, under Open MPI, so that the benchmark measures, beside DesyncFS and
 * the plain-MPI twin, what the runtime users already have does with a laggard.
 *
 * Data. Each B x B block has two StarPU handles (double buffering): version v of
 * block (bi, bj) lives in buffer v % 2. Every rank registers every handle with
 * starpu_mpi_data_register (tag: buffer, bi, bj; owner: the block's rank), and
 * allocates memory only for the blocks it owns (StarPU allocates the copies of its
 * neighbours' blocks). Version 0 is the interior at zero, set before the clock, as
 * the twin does.
 *
 * Distribution. Static, ranks as rectangles of blocks as the twin's squares: P =
 * R x C ranks, C the largest divisor of P at most sqrt(P) (P = 2: 2 x 1, top and
 * bottom halves; P = 4: 2 x 2), rank r owning block rows (r / C) * nb/R ... and
 * block columns (r % C) * nb/C ...: for a square P, the twin's layout exactly.
 *
 * Tasks. Version by version, each rank submits with starpu_mpi_task_insert the
 * tasks it takes part in (those of its blocks and of their neighbours: StarPU-MPI's
 * pruning of the task graph: the others' submissions would only cost CPU): write
 * buffer v % 2 of the block, read buffer (v - 1) % 2 of the block and of its
 * neighbours inside the grid. StarPU-MPI's owner-computes
 * rule runs it on the block's owner and sends it the neighbours' blocks it lacks;
 * StarPU's sequential consistency orders the writes after the reads of the
 * previous version (the double buffer's write-after-read).
 *
 * The kernel. Each point from its four neighbours of the previous version (the
 * block's own, a neighbour block's edge, or the boundary's values) through
 * jacobi_point, whose order of sums is the twin's: the same bits.
 *
 * Laggards (laggard.h). Each task's compute region ends at its start plus C
 * microseconds times the rank's factor, as jacobi_desync's blocks: one CPU worker
 * per process (conf.ncpus = 1, over STARPU_NCPU), so one schedule per rank, and no
 * GPU.
 *
 * The final grid goes to OUTPUT as jacobi_mpi writes it (N*N doubles, row-major,
 * native byte order; each owner writes its blocks' rows) after StarPU is shut
 * down. Rank 0 prints one line:
 *   desync_starpu ranks=P n=N block=B versions=V seconds=S cpu=C tasks=T
 * S the slowest rank's time from the barrier before the first submission to the
 * end of its tasks, C the CPU seconds of all ranks (every thread: StarPU's workers
 * and its MPI thread) in that time, T the tasks all ranks executed. Exit status 0,
 * 2 for bad arguments, 1 when something fails.
 */
#include "jacobi_kernel.h"
#include "jacobi_options.h"
#include "laggard.h"

#include <math.h>
#include <mpi.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct jacobi_options o;
static long nb;                      /* blocks per side */
static struct laggard_clock schedule; /* one worker per process: one clock */
static long executed;                /* tasks run here (by the one worker) */

/* The neighbours a task reads, in this order in its buffers after the block itself:
 * up, down, left, right; bit k of task_args.present for those inside the grid. */
static const long near[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

struct task_args {
    long bi, bj;
    int present;
};

/* A block of the previous version and its four neighbours (NULL outside the grid). */
struct around {
    const double *self, *side[4]; /* up, down, left, right */
    long bi, bj;
};

/* The previous value of point (r, c) of the block, -1 <= r, c <= B: the block's own,
 * a neighbour's edge, or the boundary ring's. */
static double previous(const struct around *a, long r, long c)
{
    long B = o.block;
    if (r >= 0 && r < B && c >= 0 && c < B)
        return a->self[r * B + c];
    int k = r < 0 ? 0 : r == B ? 1 : c < 0 ? 2 : 3;
    if (!a->side[k])
        return jacobi_boundary(a->bi * B + r, a->bj * B + c, o.n);
    long nr = k == 0 ? B - 1 : k == 1 ? 0 : r, nc = k == 2 ? B - 1 : k == 3 ? 0 : c;
    return a->side[k][nr * B + nc];
}

/* buffers: [0] the new block (W), [1] the same block of the previous version, then
 * up, down, left, right where present. Each point from its four neighbours through
 * jacobi_point, in the kernel's order: the twin's bits (no halo copy here, unlike
 * the examples: a different path to the same sums). */
static void jacobi_cpu(void *buffers[], void *cl_arg)
{
    struct task_args t;
    starpu_codelet_unpack_args(cl_arg, &t);
    int64_t start = laggard_begin(&schedule);
    long B = o.block;
    double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
    struct around a = {(const double *)STARPU_VECTOR_GET_PTR(buffers[1]), {NULL, NULL, NULL, NULL}, t.bi, t.bj};
    for (int k = 0, next = 2; k < 4; k++)
        if (t.present & (1 << k))
            a.side[k] = (const double *)STARPU_VECTOR_GET_PTR(buffers[next++]);
    for (long r = 0; r < B; r++)
        for (long c = 0; c < B; c++)
            out[r * B + c] = jacobi_point(previous(&a, r - 1, c), previous(&a, r + 1, c), previous(&a, r, c - 1),
                                          previous(&a, r, c + 1));
    if (o.cost_ns)
        laggard_wait(&schedule, start, 1, o.cost_ns, o.factor);
    executed++;
}

static struct starpu_codelet jacobi_codelet = {
    .cpu_funcs = {jacobi_cpu},
    .cpu_funcs_name = {"jacobi_cpu"},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .name = "jacobi_block",
};

/* Polite polling. StarPU-MPI's progress thread, while any receive or send is
 * pending (from the first submission to the end, here), loops over MPI_Test without
 * ever sleeping: a core per process, which on a small machine would set the speed
 * and fail the benchmark's CPU check. The issue asks every implementation to wait
 * politely (a test and a short sleep), so the program interposes MPI_Test (the only
 * MPI call StarPU polls with): when a request fails a test a second time since the
 * last pause, the thread has been once round all it waits for with nothing done,
 * and pauses 50 us, as jacobi_mpi and libdesync do. Any completion resets it. */
#define POLITE_REQUESTS 64
static __thread MPI_Request polite_seen[POLITE_REQUESTS];
static __thread int polite_count;

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request tested = *request;
    int rc = PMPI_Test(request, flag, status);
    if (rc != MPI_SUCCESS || *flag) {
        polite_count = 0;
        return rc;
    }
    int again = polite_count == POLITE_REQUESTS;
    for (int k = 0; k < polite_count && !again; k++)
        again = polite_seen[k] == tested;
    if (again) {
        struct timespec pause = {0, 50000};
        nanosleep(&pause, NULL);
        polite_count = 0;
    }
    polite_seen[polite_count++] = tested;
    return rc;
}

/* Polite idle workers. Debian builds StarPU with non-blocking drivers
 * (STARPU_NON_BLOCKING_DRIVERS in starpu_config.h): an idle worker never sleeps,
 * it asks the scheduler for a task again and again, which on the ranks waiting for
 * a laggard is a core each. No variable changes that; a scheduling policy may: this
 * one is StarPU's eager (one central queue) whose pop, finding nothing, lets other
 * threads see the worker (starpu_worker_relax_on), pauses 50 us, and asks eager
 * once more. */
static struct starpu_sched_policy polite_eager;
static struct starpu_task *(*eager_pop)(unsigned sched_ctx_id);

static struct starpu_task *polite_pop(unsigned sched_ctx_id)
{
    struct starpu_task *task = eager_pop(sched_ctx_id);
    if (task)
        return task;
    struct timespec pause = {0, 50000};
    starpu_worker_relax_on();
    nanosleep(&pause, NULL);
    starpu_worker_relax_off();
    return eager_pop(sched_ctx_id);
}

/* 0, or -1 when StarPU has no eager policy. */
static int polite_scheduler(struct starpu_conf *conf)
{
    for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); *p; p++)
        if (!strcmp((*p)->policy_name, "eager")) {
            polite_eager = **p;
            eager_pop = polite_eager.pop_task;
            polite_eager.pop_task = polite_pop;
            polite_eager.policy_name = "polite-eager";
            polite_eager.policy_description = "eager, pausing 50 us when it has no task";
            conf->sched_policy = &polite_eager;
            return 0;
        }
    return -1;
}

static int rows_of_ranks, cols_of_ranks; /* R x C */

static int owner(long bi, long bj)
{
    long per_row = nb / rows_of_ranks, per_col = nb / cols_of_ranks;
    return (int)((bi / per_row) * cols_of_ranks + bj / per_col);
}

static int inside(long bi, long bj)
{
    return bi >= 0 && bj >= 0 && bi < nb && bj < nb;
}

/* Whether this rank takes part in the task of block (bi, bj): it runs it, or owns
 * a neighbour the task reads (and sends it). StarPU-MPI's documented pruning: the
 * other ranks' submissions would do nothing but cost time. */
static int concerns(long bi, long bj, int rank)
{
    int mine = owner(bi, bj) == rank;
    for (int k = 0; k < 4 && !mine; k++)
        mine = inside(bi + near[k][0], bj + near[k][1]) && owner(bi + near[k][0], bj + near[k][1]) == rank;
    return mine;
}

int main(int argc, char **argv)
{
    int rank, nprocs, provided;
    /* SERIALIZED: while StarPU runs, only its MPI thread calls MPI; this thread
     * calls MPI again after starpu_mpi_shutdown. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int status = jacobi_parse(argc, argv, "desync_starpu", rank, nprocs, 0, &o);
    cols_of_ranks = 1;
    for (int c = 1; c * c <= nprocs; c++)
        if (nprocs % c == 0)
            cols_of_ranks = c;
    rows_of_ranks = nprocs / cols_of_ranks;
    if (!status && provided < MPI_THREAD_SERIALIZED)
        status = jacobi_fail("desync_starpu", rank, "the MPI library does not give MPI_THREAD_SERIALIZED");
    if (!status && (o.n % o.block != 0 || (o.n / o.block) % rows_of_ranks || (o.n / o.block) % cols_of_ranks)) {
        char why[160];
        snprintf(why, sizeof why, "N must be a multiple of B, and N/B of %d and %d (the ranks as %d x %d)",
                 rows_of_ranks, cols_of_ranks, rows_of_ranks, cols_of_ranks);
        status = jacobi_fail("desync_starpu", rank, why);
    }
    if (status) {
        MPI_Finalize();
        return status;
    }
    nb = o.n / o.block;
    size_t block_bytes = (size_t)(o.block * o.block) * sizeof(double);

    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = 1;
    conf.ncuda = 0;
    conf.nopencl = 0;
    conf.precedence_over_environment_variables = 1;
    if (polite_scheduler(&conf) != 0) {
        fprintf(stderr, "desync_starpu (rank %d): StarPU has no eager scheduling policy\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, &conf) != 0) {
        fprintf(stderr, "desync_starpu (rank %d): starpu_mpi_init_conf failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (starpu_worker_get_count() != 1 || starpu_cpu_worker_get_count() != 1) {
        fprintf(stderr, "desync_starpu (rank %d): StarPU has %u workers, %u of them CPU workers, not one\n", rank,
                starpu_worker_get_count(), starpu_cpu_worker_get_count());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* handle[buffer][bi * nb + bj]; data[bi * nb + bj]: two blocks, owned only. */
    starpu_data_handle_t *handle[2];
    double **data = calloc((size_t)(nb * nb), sizeof *data);
    handle[0] = calloc((size_t)(nb * nb), sizeof(starpu_data_handle_t));
    handle[1] = calloc((size_t)(nb * nb), sizeof(starpu_data_handle_t));
    if (!data || !handle[0] || !handle[1]) {
        fprintf(stderr, "desync_starpu: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long bi = 0; bi < nb; bi++)
        for (long bj = 0; bj < nb; bj++) {
            long k = bi * nb + bj;
            int mine = owner(bi, bj) == rank;
            if (mine && !(data[k] = calloc(2, block_bytes))) { /* version 0: zeros */
                fprintf(stderr, "desync_starpu: out of memory\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (int b = 0; b < 2; b++) {
                if (mine)
                    starpu_vector_data_register(&handle[b][k], STARPU_MAIN_RAM,
                                                (uintptr_t)(data[k] + (size_t)b * (size_t)(o.block * o.block)),
                                                (uint32_t)(o.block * o.block), sizeof(double));
                else
                    starpu_vector_data_register(&handle[b][k], -1, 0, (uint32_t)(o.block * o.block),
                                                sizeof(double));
                starpu_mpi_data_register(handle[b][k], (starpu_mpi_tag_t)(b * nb * nb + k), owner(bi, bj));
            }
        }

    starpu_mpi_barrier(MPI_COMM_WORLD);
    double began = starpu_timing_now(), cpu_began = laggard_cpu_seconds();
    int failed = 0;
    for (long v = 1; v <= o.versions && !failed; v++) {
        starpu_data_handle_t *next = handle[v % 2], *cur = handle[(v - 1) % 2];
        for (long bi = 0; bi < nb && !failed; bi++)
            for (long bj = 0; bj < nb && !failed; bj++) {
                if (!concerns(bi, bj, rank))
                    continue;
                struct task_args a = {bi, bj, 0};
                struct starpu_data_descr d[6];
                int count = 0;
                d[count++] = (struct starpu_data_descr){next[bi * nb + bj], STARPU_W};
                d[count++] = (struct starpu_data_descr){cur[bi * nb + bj], STARPU_R};
                for (int k = 0; k < 4; k++) {
                    long ni = bi + near[k][0], nj = bj + near[k][1];
                    if (inside(ni, nj)) {
                        a.present |= 1 << k;
                        d[count++] = (struct starpu_data_descr){cur[ni * nb + nj], STARPU_R};
                    }
                }
                int rc = starpu_mpi_task_insert(MPI_COMM_WORLD, &jacobi_codelet, STARPU_DATA_MODE_ARRAY, d, count,
                                                STARPU_VALUE, &a, sizeof a, 0);
                if (rc != 0) {
                    fprintf(stderr, "desync_starpu (rank %d): starpu_mpi_task_insert: %s\n", rank, strerror(-rc));
                    failed = 1;
                }
            }
    }
    starpu_task_wait_for_all();
    double mine = (starpu_timing_now() - began) / 1e6, cpu = laggard_cpu_seconds() - cpu_began;
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
    /* Unregistering brings each owned block's last version home, into data[]. */
    for (int b = 0; b < 2; b++)
        for (long k = 0; k < nb * nb; k++)
            starpu_data_unregister(handle[b][k]);
    starpu_mpi_shutdown();

    double slowest = 0, cpu_total = 0;
    long tasks = 0;
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpu_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&executed, &tasks, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    /* Each owned block's rows to their places, as jacobi_desync writes them. */
    MPI_File fh;
    int rc = any ? MPI_ERR_OTHER
                 : MPI_File_open(MPI_COMM_WORLD, o.output, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (!any && rc == MPI_SUCCESS) {
        size_t last = (size_t)(o.versions % 2) * (size_t)(o.block * o.block);
        for (long k = 0; k < nb * nb && rc == MPI_SUCCESS; k++) {
            if (!data[k])
                continue;
            long bi = k / nb, bj = k % nb;
            for (long r = 0; r < o.block && rc == MPI_SUCCESS; r++) {
                MPI_Offset at = (MPI_Offset)(((bi * o.block + r) * o.n + bj * o.block) * (long)sizeof(double));
                rc = MPI_File_write_at(fh, at, data[k] + last + r * o.block, (int)o.block, MPI_DOUBLE,
                                       MPI_STATUS_IGNORE);
            }
        }
        int closed = MPI_File_close(&fh);
        rc = rc == MPI_SUCCESS ? closed : rc;
    }
    int bad = rc != MPI_SUCCESS, any_bad = 0;
    if (bad && !any)
        fprintf(stderr, "desync_starpu (rank %d): writing %s failed\n", rank, o.output);
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any_bad)
        printf("desync_starpu ranks=%d n=%ld block=%ld versions=%ld seconds=%.6f cpu=%.3f tasks=%ld\n", nprocs, o.n,
               o.block, o.versions, slowest, cpu_total, tasks);
    for (long k = 0; k < nb * nb; k++)
        free(data[k]);
    free(data);
    free(handle[0]);
    free(handle[1]);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
