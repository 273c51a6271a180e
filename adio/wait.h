// How processes of one node wait for each other in shared memory: spin, yield or
// sleep on a futex, chosen at each wait by how busy the node's CPUs are. Shared by
// the shared file pointer's rendezvous and the byte-range lock.
#ifndef PIOX_ADIO_WAIT_H
#define PIOX_ADIO_WAIT_H

#include "futex.h"

#include <atomic>
#include <cstdint>

#include <sched.h>
#include <unistd.h>

namespace piox::adio {

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// The node's runnable tasks right now (running or ready to run, the caller
// included): /proc/loadavg's fourth field, which the kernel sums over the CPUs'
// run queues when the file is read. Read again at most once a millisecond, so a
// burst of short waits costs one read. 0 when the file cannot be read.
int node_runnable_tasks();

// How long a process waits actively before it sleeps on the futex, decided when a
// wait begins, from what the node's CPUs are doing then:
//   - A CPU is free (runnable tasks <= CPUs): spin, then yield, then sleep. Waking a
//     sleeper costs tens of microseconds in a VM, and a holder that is running
//     finishes most waits within the spin.
//   - The CPUs are taken, but by the processes sharing the object (the runnable
//     tasks, less those of them not asleep, leave at most one other: the launcher's
//     proxy, say): a few spins, then yields. A process that yields stays runnable
//     and takes the lock the moment it is handed over, while a sleeper's wake-up
//     waits for a time slice: twice as fast at 4-8 ranks on 2 CPUs (bench/atomic,
//     examples/atomic_blocks).
//   - Other work takes CPUs too (a busy node, OS noise, another job): sleep at once.
//     A yield would then hand a whole time slice to a process that never yields,
//     while the process being waited for (a lock holder, the last to arrive) waits
//     for a CPU behind it; a sleeper leaves the run queue, and the kernel wakes it
//     straight into its turn (issue 19's load tables).
// `asleep` counts the processes sharing the object that sleep in a futex right now
// (sleep() keeps it), so that they are not mistaken for other work's absence.
struct WaitPolicy {
    int processes;                            // of this node, sharing the object
    int yields;                               // before sleeping, when yielding pays
    std::atomic<uint32_t> *asleep;            // in the object's shared memory
    // Whether it yields when more than two of the object's processes per CPU are
    // awake. A yield hands the CPU to another runnable task of the same CPU: with one
    // other of ours that is likely the process being waited for; with several, mostly
    // other waiters, which hand it on in turn.
    bool yields_when_crowded = true;

    static WaitPolicy for_processes(int processes, std::atomic<uint32_t> *asleep)
    {
        return WaitPolicy{processes, 10, asleep};
    }

    // For a lock handed from process to process (lock_shm_range.cpp): many more
    // yields before sleeping, since a lock is handed over once per access (measured
    // with bench/atomic and examples/atomic_blocks).
    static WaitPolicy for_lock(int processes, std::atomic<uint32_t> *asleep)
    {
        return WaitPolicy{processes, 1000, asleep};
    }

    // The same, for a wait expected to last longer than a sleep and a wake-up cost:
    // crowded, it sleeps after its spins (the rule of waiting actively for no longer
    // than blocking costs). A combined write's wait is the pass over its span
    // (lock_shm_range.cpp): long for 8 writers' 10,000 ints each, short for
    // examples/atomic_blocks' 64 blocks (bench/README.md, "Under load (issue 19)").
    WaitPolicy for_long_waits() const
    {
        WaitPolicy policy = *this;
        policy.yields_when_crowded = false;
        return policy;
    }

    // A futex sleep and the wake-up that ends it, in a VM: tens of microseconds.
    static constexpr double kSleepAndWakeNs = 50000;

    struct Budget {
        int spins;
        int yields;
    };

    Budget budget() const
    {
        static const int cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
        const int runnable = node_runnable_tasks();
        if (runnable <= cpus)  // 0 (unknown) included
            return Budget{2000, yields};
        const int ours_awake = processes - static_cast<int>(asleep->load(std::memory_order_relaxed));
        if (runnable - ours_awake <= 1)
            return Budget{64, yields_when_crowded || ours_awake <= 2 * cpus ? yields : 0};
        return Budget{0, 0};
    }

    // Spins and yields until done() or the budget is spent; true when done(). A wait
    // that is over at once (an uncontended mutex) never looks at the node's load.
    template <typename Done>
    bool wait_actively(Done done) const
    {
        if (done())
            return true;
        const Budget allowed = budget();
        for (int i = 0; i < allowed.spins; i++) {
            if (done())
                return true;
            cpu_relax();
        }
        for (int i = 0; i < allowed.yields; i++) {
            if (done())
                return true;
            sched_yield();
        }
        return done();
    }

    // futex_wait, counted in `asleep`.
    void sleep(std::atomic<uint32_t> *word, uint32_t expected) const
    {
        asleep->fetch_add(1, std::memory_order_relaxed);
        futex_wait(word, expected);
        asleep->fetch_sub(1, std::memory_order_relaxed);
    }
};

// A mutex in memory shared between processes (Drepper, "Futexes are tricky",
// mutex 3): 0 free, 1 held, 2 held with possible sleepers. Held only for short,
// bounded bookkeeping, so a brief active wait usually gets it without a syscall.
class ShmMutex {
public:
    void lock(const WaitPolicy &policy)
    {
        const bool taken = policy.wait_actively([this] {
            uint32_t free = 0;
            return word_.load(std::memory_order_relaxed) == 0 &&
                   word_.compare_exchange_strong(free, 1, std::memory_order_acquire);
        });
        if (taken)
            return;
        while (word_.exchange(2, std::memory_order_acquire) != 0)
            policy.sleep(&word_, 2);
    }

    // Wakes one sleeper: it takes the mutex with state 2, so that its own unlock
    // wakes the next (handoff, no thundering herd).
    void unlock()
    {
        if (word_.exchange(0, std::memory_order_release) == 2)
            futex_wake_one(&word_);
    }

    void reset() { word_.store(0, std::memory_order_relaxed); }

private:
    std::atomic<uint32_t> word_{0};
};

}  // namespace piox::adio

#endif
