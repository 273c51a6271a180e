/* laggard.h - a laggard, emulated honestly on a small machine (issue 18, section 4).
 *
 * Each block of work has a nominal cost c. A process with laggard factor L does the
 * real work, then sleeps until start + blocks * c * L (an absolute deadline on
 * CLOCK_MONOTONIC). Its speed is then set by that schedule, not by how the kernel
 * shares a few cores among many processes; and a factor of 1 is the schedule too,
 * so that every process of a comparison runs at the speed it is told. The DesyncFS
 * example and its plain-MPI twin both use it around their compute regions.
 *
 * The kernel's lateness in waking the process from that sleep is not work: a
 * compute region that begins straight after a wake-up (within 1 ms) begins that
 * much earlier on the schedule (laggard_begin). What the program did between waking
 * and beginning still counts. Otherwise a program that sleeps once per block
 * (DesyncFS) would pay the lateness 16 times where its twin, sleeping once per step,
 * pays it once. The timer slack is 1 ns (PR_SET_TIMERSLACK) during these sleeps for
 * the same reason: the default 50 us would be a large part of a 2 ms block. */
#ifndef DESYNC_LAGGARD_H
#define DESYNC_LAGGARD_H

#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

/* The last sleep: its deadline and when it returned (0: none yet). */
struct laggard_clock {
    int64_t deadline_ns, woke_ns;
};

static inline int64_t laggard_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* This process's CPU time, user and system, in seconds: a benchmark checks that the
 * machine was not saturated (then the schedule, not the cores, set the speed). */
static inline double laggard_cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* A region beginning this soon after a wake-up went straight on from it. */
#define LAGGARD_STRAIGHT_ON_NS 1000000

/* The start of a compute region on the schedule. */
static inline int64_t laggard_begin(struct laggard_clock *clock)
{
    int64_t now = laggard_now_ns();
    if (clock->woke_ns != 0 && now - clock->woke_ns < LAGGARD_STRAIGHT_ON_NS && clock->woke_ns > clock->deadline_ns)
        return now - (clock->woke_ns - clock->deadline_ns);
    return now;
}

/* Sleeps until start_ns + blocks * cost_ns * factor; returns at once if that has
 * passed (the real work took longer than the schedule: the schedule is then not what
 * sets the speed, which a benchmark checks by CPU use). */
static inline void laggard_wait(struct laggard_clock *clock, int64_t start_ns, long blocks, int64_t cost_ns,
                                double factor)
{
    int64_t deadline = start_ns + (int64_t)((double)(blocks * cost_ns) * factor);
    struct timespec t = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    /* Exact for this sleep only: the polite waits' 50 us sleeps keep the default
     * slack, which lets the kernel batch their wake-ups (1 ns there cost a tenth of a
     * core per waiting process). */
    int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0UL, 0UL, 0UL);
    clock->deadline_ns = deadline;
    clock->woke_ns = laggard_now_ns();
}

#endif
