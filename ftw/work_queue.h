// work_queue.h - one rank's queue of work, shared by its threads (H-DRQS: "the
// queue is split under a lock").
//
// Threads take the newest item (depth first: the queue holds the frontier, not the
// tree); a split gives away the oldest ones, the roots of the largest subtrees.
#ifndef PFTW_WORK_QUEUE_H
#define PFTW_WORK_QUEUE_H

#include "options.h"
#include "work_item.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <vector>

namespace pftw {

class WorkQueue {
public:
    void push(WorkItem &&item);
    // Takes the newest item, sleeping until there is one, and counts the caller busy
    // until done_with_item; false once closed.
    bool wait_pop(WorkItem *item);
    // For the master thread: an item, or word that the queue is idle, or nothing
    // within `timeout` (other threads are busy and may queue more).
    enum class Wait { item, idle, timeout };
    Wait wait_pop_for(WorkItem *item, std::chrono::microseconds timeout);
    void done_with_item();
    // Removes part of the queue for a peer, per the split rule. Keeps at least one
    // item (or one name of a lone batch); empty when there is nothing to spare.
    std::vector<WorkItem> split_off(Split split, std::mt19937_64 &random);
    // Drops every queued item (a stop).
    void clear();
    // Wakes the sleeping threads for good.
    void close();

private:
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<WorkItem> items_;
    int busy_ = 0;
    int sleeping_ = 0;
    bool closed_ = false;
};

}  // namespace pftw
#endif
