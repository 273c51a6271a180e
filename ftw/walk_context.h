// walk_context.h - what every thread of a rank shares during one walk, and what
// each thread counts.
#ifndef PFTW_WALK_CONTEXT_H
#define PFTW_WALK_CONTEXT_H

#include "options.h"
#include "pftw.h"
#include "work_queue.h"

#include <atomic>
#include <cstdint>

#include <sys/types.h>

namespace pftw {

struct WalkContext {
    WalkOptions options;
    PFTW_Visit_fn visit = nullptr;
    void *extra = nullptr;
    dev_t root_device = 0;       // for pftw_xdev
    WorkQueue queue;
    // Directories this rank holds open for queued children; past the budget, children
    // are queued without their parent and opened by path (bounded descriptors in any
    // tree shape).
    std::atomic<int> open_directories{0};
    int directory_budget = 256;
    std::atomic<bool> stopped{false};         // a stop was seen or heard: visit nothing more
    std::atomic<bool> stop_to_announce{false};  // a visit here returned PFTW_STOP
};

// One thread's counts, kept apart from other threads' (no sharing of cache lines).
struct alignas(64) ThreadTally {
    uint64_t entries = 0, directories = 0, files = 0, symlinks = 0, others = 0;
    uint64_t bytes = 0, errors = 0;
    uint64_t ticks_visit = 0, ticks_stat = 0, ticks_readdir = 0;
};

}  // namespace pftw
#endif
