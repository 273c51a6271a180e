// Sleeping on a 32-bit word in memory shared between processes. Waiters block in
// the kernel instead of spinning, which matters when MPI ranks outnumber cores.
#ifndef PIOX_ADIO_FUTEX_H
#define PIOX_ADIO_FUTEX_H

#include <atomic>
#include <climits>
#include <cstdint>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace piox::adio {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word must be 32 bits");

// Returns when *word may differ from expected (spurious wake-ups are allowed).
// Not FUTEX_PRIVATE: the word lives in memory mapped by several processes.
inline void futex_wait(std::atomic<uint32_t> *word, uint32_t expected)
{
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT, expected, nullptr,
            nullptr, 0);
}

inline void futex_wake_all(std::atomic<uint32_t> *word)
{
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, INT_MAX, nullptr,
            nullptr, 0);
}

inline void futex_wake_one(std::atomic<uint32_t> *word)
{
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

}  // namespace piox::adio

#endif
