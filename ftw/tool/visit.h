// visit.h - pftw's visit callback and what each thread gathers with it.
//
// visit runs on every rank, on up to pftw_threads threads at once (entry->thread
// tells which), and may not call MPI. So each thread appends to its own tally, with
// no lock; the tallies leave the rank only after the walk (output.h).
#ifndef PFTW_TOOL_VISIT_H
#define PFTW_TOOL_VISIT_H

#include "du.h"
#include "options.h"
#include "pftw.h"

#include <cstdint>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace pftw_tool {

// Aligned to a cache line, so threads bumping their own counters do not keep
// invalidating each other's lines (false sharing).
struct alignas(64) ThreadTally {
    uint64_t matched = 0;   // entries selected, over all walks so far
    bool visited = false;   // this thread visited an entry
    std::string paths;      // this walk's selected paths with terminators (--print*)
    DuTally du;             // this walk's --du totals
};

class Visitor {
public:
    // thread_slots: tallies to keep; a thread index beyond them (a library default we
    // did not foresee) still works, through one locked spare tally.
    Visitor(const Options &options, timespec start, int thread_slots);

    // The PFTW_Visit_fn; extra is the Visitor.
    static int visit(const PFTW_Entry *entry, void *extra);

    // Clears the per-walk buffers and sets the root as the user gave it.
    void begin_walk(const std::string &root);

    // This walk's selected paths, per thread (--print, --print0).
    std::vector<std::string_view> path_pieces() const;
    // This walk's --du records, all threads.
    std::string du_records() const;
    // Entries selected on this rank, all walks.
    uint64_t matched() const;
    // 1 + the highest thread index that visited on this rank (0 if none did).
    int threads_seen() const;

private:
    void on_entry(const PFTW_Entry &entry, ThreadTally &tally);

    const Selection &selection_;
    const OutputMode output_;
    const bool du_, stat_;
    const timespec start_;
    std::string root_;
    std::vector<ThreadTally> tallies_;
    ThreadTally spare_;
    std::mutex spare_lock_;
    int spare_highest_thread_ = -1;
};

}  // namespace pftw_tool

#endif
