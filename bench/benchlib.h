/*
 * benchlib.h - what the bench programs share: failing loudly, finding out what ran
 * (which MPI, whether libpiox was preloaded) and the warm-up that sizes a run.
 *
 * Header only (static functions): each driver compiles one .c file with mpicc, and
 * this sits next to it. Plain C against the MPI standard, as the programs are.
 * A program sets bench_program, world_rank and world_size before using it.
 */
#ifndef PIOX_BENCH_BENCHLIB_H
#define PIOX_BENCH_BENCHLIB_H

#include <mpi.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char *bench_program = "bench";
static int world_rank, world_size;

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: rank %d: ", bench_program, world_rank);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        die("%s failed: %s", what, text);
    }
}

static const char *mpi_name(void)
{
#if defined(OPEN_MPI)
    return "openmpi";
#elif defined(MPICH)
    return "mpich";
#else
    return "other";
#endif
}

/* Whether libpiox is in the process: the drivers refuse a piox column measured
 * without it (every ratio would be 1 and prove nothing). */
static int piox_loaded(void)
{
    return dlsym(RTLD_DEFAULT, "piox_sfp_create") != NULL;
}

/* Runs `count` operations on every rank; returns the slowest rank's seconds. */
typedef double (*timed_operations_fn)(void *state, uint64_t count);

/* The first warm-up: rounds of 1, 2, 4, ... operations until the last round lasted
 * half of `seconds` and cost about as much per operation as the one before (or the
 * next would exceed max_operations, or the warm-up has lasted 4 x `seconds`).
 * Returns the operations done; *seconds_per_operation is the slowest rank's mean in
 * the last round, the estimate of the steady state. Why steady: when ranks
 * outnumber cores, processes leave a busy-polling MPI collective (the open, the
 * barrier) up to milliseconds apart, and the first calls absorb that skew; a round
 * whose cost per call still halves when its length doubles is measuring the skew,
 * not the call. */
static uint64_t calibrate(timed_operations_fn timed, void *state, double seconds,
                          uint64_t max_operations, double *seconds_per_operation)
{
    uint64_t done = 0, round = 1;
    double spent = 0, previous = 0;
    *seconds_per_operation = 0;
    while (done + round <= max_operations) {
        const double last = timed(state, round);
        *seconds_per_operation = last / (double)round;
        const int steady = previous > 0 && *seconds_per_operation >= 0.8 * previous;
        previous = *seconds_per_operation;
        spent += last;
        done += round;
        round *= 2;
        if ((last >= seconds / 2 && steady) || spent >= 4 * seconds)
            break;
    }
    return done;
}

#endif
