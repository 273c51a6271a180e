// How processes of one node wait for each other in shared memory: a short spin,
// a few yields, then sleep on a futex. Shared by the shared file pointer's
// rendezvous and the byte-range lock.
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

// How long a process waits actively before it sleeps on the futex. Waking a sleeper
// costs tens of microseconds in a VM, so when every process of the node has a CPU a
// long spin (a few microseconds) finishes most waits without sleeping. When ranks
// outnumber CPUs, spinning only delays the processes being waited for, so spin
// briefly and hand the CPU over with a few sched_yield calls before sleeping.
// (Measured with bench/shared_fp; more yields made 8 ranks on 2 CPUs slower.)
struct WaitPolicy {
    int spins;
    int yields;

    static WaitPolicy for_processes(int processes)
    {
        static const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        return processes <= cpus ? WaitPolicy{2000, 10} : WaitPolicy{64, 10};
    }

    // For a lock handed from process to process (lock_shm_range.cpp): the same spin,
    // but many more yields before sleeping. A lock is handed over once per access, and
    // when ranks outnumber CPUs a sleeper's wake-up waits for a time slice, while a
    // process that yields is still runnable and takes the lock at once (measured with
    // bench/atomic and examples/atomic_blocks: twice as fast at 4-8 ranks on 2 CPUs).
    static WaitPolicy for_lock(int processes)
    {
        return WaitPolicy{for_processes(processes).spins, 1000};
    }

    // Spins and yields until done() or the budget is spent; true when done().
    template <typename Done>
    bool wait_actively(Done done) const
    {
        for (int i = 0; i < spins; i++) {
            if (done())
                return true;
            cpu_relax();
        }
        for (int i = 0; i < yields; i++) {
            if (done())
                return true;
            sched_yield();
        }
        return done();
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
            futex_wait(&word_, 2);
    }

    void unlock()
    {
        if (word_.exchange(0, std::memory_order_release) == 2)
            futex_wake_all(&word_);
    }

    void reset() { word_.store(0, std::memory_order_relaxed); }

private:
    std::atomic<uint32_t> word_{0};
};

}  // namespace piox::adio

#endif
