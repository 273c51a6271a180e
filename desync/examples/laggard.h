/* laggard.h - a laggard, emulated honestly on a small machine (issue 18, section 4).
 *
 * Each block of work has a nominal cost c. A process with laggard factor L does the
 * real work, then sleeps until start + blocks * c * L (an absolute deadline on
 * CLOCK_MONOTONIC). Its speed is then set by that schedule, not by how the kernel
 * shares a few cores among many processes; and a factor of 1 is the schedule too,
 * so that every process of a comparison runs at the speed it is told. The DesyncFS
 * example and its plain-MPI twin both use it around their compute regions. */
#ifndef DESYNC_LAGGARD_H
#define DESYNC_LAGGARD_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline int64_t laggard_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Sleeps until start_ns + blocks * cost_ns * factor; returns at once if that has
 * passed (the real work took longer than the schedule: the schedule is then not what
 * sets the speed, which a benchmark checks by CPU use). */
static inline void laggard_wait(int64_t start_ns, long blocks, int64_t cost_ns, double factor)
{
    int64_t deadline = start_ns + (int64_t)((double)(blocks * cost_ns) * factor);
    struct timespec t = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
}

#endif
