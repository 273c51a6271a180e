// random.cpp - the scheduler's draws, made from raw 64-bit outputs so that the same seed
// gives the same assignment with any C++ library.
#include "scheduler.h"

namespace dli::sched {

double Random::uniform() {
    return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

size_t Random::below(size_t n) {
    // Reject the few lowest outputs that would make some remainders more likely.
    const uint64_t bound = static_cast<uint64_t>(n);
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t x = engine_();
        if (x >= threshold) return static_cast<size_t>(x % bound);
    }
}

}  // namespace dli::sched
