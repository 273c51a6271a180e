// ticks.h - a cheap clock for the time profile: the CPU's time-stamp counter, read a
// few times per entry (clock_gettime would cost several percent of a walk), and
// converted to seconds with a rate measured over the walk itself.
#ifndef PFTW_TICKS_H
#define PFTW_TICKS_H

#include <chrono>
#include <cstdint>

namespace pftw {

inline uint64_t ticks_now()
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

inline double seconds_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Ticks per second, from a pair of readings at the start and at the end of a walk.
class TickRate {
public:
    TickRate() : ticks_(ticks_now()), seconds_(seconds_now()) {}
    double seconds_per_tick() const
    {
        double seconds = seconds_now() - seconds_;
        uint64_t ticks = ticks_now() - ticks_;
        return ticks ? seconds / static_cast<double>(ticks) : 0.0;
    }

private:
    uint64_t ticks_;
    double seconds_;
};

}  // namespace pftw
#endif
