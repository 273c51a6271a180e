/*
 * jacobi_mpi N B VERSIONS OUTPUT [--cost-us C] [--laggard RANK:FACTOR]...
 *
 * The plain-MPI twin of the DesyncFS Jacobi example (issue 18): a Gropp-style 2-D
 * Jacobi on an N x N grid (jacobi_kernel.h), P = q x q ranks each owning an
 * (N/q) x (N/q) square, which is a square of (N/q/B)^2 blocks of B x B points: the
 * same block layout per rank as the DesyncFS version's uniform chunks. VERSIONS
 * steps, each a halo exchange with the four neighbours and an update.
 *
 * Laggards (laggard.h): each step's compute region ends at its start plus the rank's
 * blocks times C microseconds (default 0: no schedule) times its factor (default 1;
 * --laggard 3:4 makes rank 3 four times slower). Waiting for halos is polite: a test
 * and a 50 us sleep, never a spinning blocking call (the DesyncFS version waits the
 * same way).
 *
 * The final grid goes to OUTPUT with collective MPI-IO: N*N doubles, row-major,
 * native byte order. Rank 0 prints one line:
 *   jacobi_mpi ranks=P n=N block=B versions=V seconds=S cpu=C
 * S being the slowest rank's time for the steps, C the CPU seconds all ranks used
 * in them. Exit status 0, or 2 for bad
 * arguments (with a message), or 1 when an MPI call fails.
 */
#include "jacobi_kernel.h"
#include "jacobi_options.h"
#include "laggard.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;

/* The local square with a halo ring: (m + 2)^2 doubles, row-major. */
#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(m + 2) + (size_t)(j)])

/* Waits politely for `count` (at most 8) requests: a test, then a short sleep. */
static int polite_waitall(int count, MPI_Request *requests)
{
    MPI_Status statuses[8]; /* not MPI_STATUSES_IGNORE: gcc 12 takes it for an array too short */
    for (;;) {
        int done = 0;
        int rc = MPI_Testall(count, requests, &done, statuses);
        if (rc != MPI_SUCCESS || done)
            return rc;
        struct timespec pause = {0, 50000};
        nanosleep(&pause, NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    struct jacobi_options o;
    int q = (int)lround(sqrt((double)nprocs));
    int status = jacobi_parse(argc, argv, "jacobi_mpi", rank, nprocs, 0, &o);
    if (!status && q * q != nprocs)
        status = jacobi_fail("jacobi_mpi", rank, "the number of ranks must be a square (1, 4, 9, 16, ...)");
    if (!status && o.n % ((long)q * o.block) != 0)
        status = jacobi_fail("jacobi_mpi", rank, "N must be a multiple of sqrt(ranks) times B");
    if (status) {
        MPI_Finalize();
        return status;
    }
    long m = o.n / q, row0 = (rank / q) * m, col0 = (rank % q) * m;
    long blocks = (m / o.block) * (m / o.block);
    double *cur = calloc((size_t)((m + 2) * (m + 2)), sizeof *cur);
    double *next = calloc((size_t)((m + 2) * (m + 2)), sizeof *next);
    if (!cur || !next) {
        fprintf(stderr, "jacobi_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The fixed boundary where the square touches the grid's edge, in both arrays:
     * the halo cells there are never received. */
    for (long k = 0; k < m + 2; k++) {
        if (row0 == 0)
            AT(cur, 0, k) = jacobi_boundary(-1, col0 + k - 1, o.n);
        if (row0 + m == o.n)
            AT(cur, m + 1, k) = jacobi_boundary(o.n, col0 + k - 1, o.n);
        if (col0 == 0)
            AT(cur, k, 0) = jacobi_boundary(row0 + k - 1, -1, o.n);
        if (col0 + m == o.n)
            AT(cur, k, m + 1) = jacobi_boundary(row0 + k - 1, o.n, o.n);
    }
    memcpy(next, cur, (size_t)((m + 2) * (m + 2)) * sizeof *cur);
    int up = row0 > 0 ? rank - q : MPI_PROC_NULL, down = row0 + m < o.n ? rank + q : MPI_PROC_NULL;
    int left = col0 > 0 ? rank - 1 : MPI_PROC_NULL, right = col0 + m < o.n ? rank + 1 : MPI_PROC_NULL;
    MPI_Datatype column;
    MPI_Type_vector((int)m, 1, (int)(m + 2), MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    struct laggard_clock schedule = {0};
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    double began = MPI_Wtime(), cpu_began = laggard_cpu_seconds();
    for (long v = 0; v < o.versions && rc == MPI_SUCCESS; v++) {
        MPI_Request r[8];
        MPI_Irecv(&AT(cur, 0, 1), (int)m, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&AT(cur, m + 1, 1), (int)m, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(&AT(cur, 1, 0), 1, column, left, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Irecv(&AT(cur, 1, m + 1), 1, column, right, 3, MPI_COMM_WORLD, &r[3]);
        MPI_Isend(&AT(cur, 1, 1), (int)m, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &r[4]);
        MPI_Isend(&AT(cur, m, 1), (int)m, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &r[5]);
        MPI_Isend(&AT(cur, 1, 1), 1, column, left, 3, MPI_COMM_WORLD, &r[6]);
        MPI_Isend(&AT(cur, 1, m), 1, column, right, 2, MPI_COMM_WORLD, &r[7]);
        rc = polite_waitall(8, r);
        int64_t start = laggard_begin(&schedule);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= m; j++)
                AT(next, i, j) = jacobi_point(AT(cur, i - 1, j), AT(cur, i + 1, j), AT(cur, i, j - 1),
                                              AT(cur, i, j + 1));
        if (o.cost_ns)
            laggard_wait(&schedule, start, blocks, o.cost_ns, o.factor);
        double *swap = cur;
        cur = next;
        next = swap;
    }
    double mine = MPI_Wtime() - began, slowest = 0, cpu = laggard_cpu_seconds() - cpu_began, cpu_total = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpu_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    /* The interior, to its place in the N x N file. */
    int gsizes[2] = {(int)o.n, (int)o.n}, sizes[2] = {(int)m, (int)m};
    int starts[2] = {(int)row0, (int)col0}, local[2] = {(int)(m + 2), (int)(m + 2)}, inner[2] = {1, 1};
    MPI_Datatype view, interior;
    MPI_Type_create_subarray(2, gsizes, sizes, starts, MPI_ORDER_C, MPI_DOUBLE, &view);
    MPI_Type_create_subarray(2, local, sizes, inner, MPI_ORDER_C, MPI_DOUBLE, &interior);
    MPI_Type_commit(&view);
    MPI_Type_commit(&interior);
    MPI_File fh;
    if (rc == MPI_SUCCESS)
        rc = MPI_File_open(MPI_COMM_WORLD, o.output, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS) {
        rc = MPI_File_set_size(fh, 0); /* an older, longer file keeps no tail */
        if (rc == MPI_SUCCESS)
            rc = MPI_File_set_view(fh, 0, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
        if (rc == MPI_SUCCESS)
            rc = MPI_File_write_all(fh, cur, 1, interior, MPI_STATUS_IGNORE);
        int closed = MPI_File_close(&fh);
        rc = rc == MPI_SUCCESS ? closed : rc;
    }
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        fprintf(stderr, "jacobi_mpi (rank %d): %s\n", rank, text);
    } else if (rank == 0) {
        printf("jacobi_mpi ranks=%d n=%ld block=%ld versions=%ld seconds=%.6f cpu=%.3f\n", nprocs, o.n, o.block,
               o.versions, slowest, cpu_total);
    }
    MPI_Type_free(&view);
    MPI_Type_free(&interior);
    MPI_Type_free(&column);
    free(cur);
    free(next);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
