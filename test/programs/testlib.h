/*
 * testlib.h - small helpers shared by the C test programs: failure reporting that
 * names the rank and the line, and a check that an MPI call failed with a given
 * error class. A program that found no failure prints " No Errors" on rank 0 (as
 * ROMIO's tests do) and exits 0; otherwise it exits 1.
 */
#ifndef PIOX_TESTLIB_H
#define PIOX_TESTLIB_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int testlib_failures;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            int rank_;                                                            \
            MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                \
            fprintf(stderr, "FAIL rank %d %s:%d: ", rank_, __FILE__, __LINE__);   \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            testlib_failures++;                                                   \
        }                                                                         \
    } while (0)

/* The call must succeed. */
#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* The call must fail with error class expected_class. */
#define CHECK_ERROR_CLASS(call, expected_class)                                    \
    do {                                                                           \
        int code_ = (call), class_ = MPI_SUCCESS;                                  \
        if (code_ != MPI_SUCCESS)                                                  \
            MPI_Error_class(code_, &class_);                                       \
        CHECK(class_ == (expected_class), "%s: error class %d, expected %s (%d)", \
              #call, class_, #expected_class, expected_class);                     \
    } while (0)

/* For the programs whose one argument is a directory: MPI_Init, then the directory
 * copied into dir (n bytes). Returns 0, after MPI_Finalize, when it is missing. */
static int testlib_start_in_dir(int *argc, char ***argv, char *dir, size_t n)
{
    MPI_Init(argc, argv);
    if (*argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", (*argv)[0]);
        MPI_Finalize();
        return 0;
    }
    snprintf(dir, n, "%s", (*argv)[1]);
    return 1;
}

/* Collective over MPI_COMM_WORLD: prints the verdict and returns the exit status. */
/* A zeroed int64 in the machine's real shared memory (whatever PIOX_HOSTNAME says),
 * for counters and flags between the ranks of a test. Collective; free with
 * testlib_free_machine_counter. */
typedef struct {
    MPI_Comm machine;
    MPI_Win win;
    int64_t *value;
} testlib_machine_counter;

static testlib_machine_counter testlib_new_machine_counter(void)
{
    testlib_machine_counter c;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c.machine);
    int machine_rank = 0;
    MPI_Comm_rank(c.machine, &machine_rank);
    MPI_Win_allocate_shared(machine_rank == 0 ? sizeof(int64_t) : 0, 1, MPI_INFO_NULL, c.machine,
                            &c.value, &c.win);
    MPI_Aint size_unused;
    int unit_unused;
    MPI_Win_shared_query(c.win, 0, &size_unused, &unit_unused, &c.value);
    if (machine_rank == 0)
        *c.value = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    return c;
}

static void testlib_free_machine_counter(testlib_machine_counter *c)
{
    MPI_Win_free(&c->win);
    MPI_Comm_free(&c->machine);
}

static int testlib_finish(void)
{
    int all = 0, rank = 0;
    MPI_Allreduce(&testlib_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
        fflush(stdout);
    }
    return all == 0 ? 0 : 1;
}

/* testlib_finish, then MPI_Finalize: main's last statement in most programs. */
static int testlib_finish_and_finalize(void)
{
    int status = testlib_finish();
    MPI_Finalize();
    return status;
}

#endif
