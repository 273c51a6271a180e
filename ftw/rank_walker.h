// rank_walker.h - one rank's part of a walk: the work loop of Algorithms 2-4.
//
// The thread that called PFTW_Walk is the master: the only one that calls MPI
// (MPI_THREAD_FUNNELED is enough). Between items it answers peers' requests with a
// split of the queue, and when the rank is idle it asks the next peer for work and
// moves the termination token. Worker threads (pftw_threads - 1) take items from the
// same queue and sleep on it when it is empty. The loop uses no collectives.
#ifndef PFTW_RANK_WALKER_H
#define PFTW_RANK_WALKER_H

#include "item_processor.h"
#include "messenger.h"
#include "peers.h"
#include "termination.h"
#include "walk_context.h"

#include <memory>
#include <random>
#include <vector>

namespace pftw {

struct RankResult {
    uint64_t requests_fruitful = 0, requests_unfruitful = 0, requests_served = 0, token_rounds = 0;
    double seconds_comm = 0;
    bool stopped = false;
    bool mpi_failed = false;
};

struct ProgressReport {
    PFTW_Progress_fn callback = nullptr;  // rank 0 only
    void *extra = nullptr;
    double interval = 0;                  // 0: no progress messages at all
};

class RankWalker {
public:
    RankWalker(MPI_Comm comm, int rank, int size, WalkContext *context, const NodeLayout &layout,
               uint64_t seed, const ProgressReport &progress);
    ~RankWalker();
    // Runs the loop until termination; the root item is given to rank 0 only.
    void run(WorkItem *root);
    const RankResult &result() const { return result_; }
    const Messenger &messenger() const { return messenger_; }
    // Every thread's tally, summed.
    ThreadTally tally() const;

private:
    void service_messages();
    void handle(const MPI_Status &status);
    void answer_request(int from);
    void take_reply(int from, const std::string &payload);
    void act_while_idle();
    void announce_stop();
    void report_progress();
    void finish();
    uint64_t entries_so_far() const;

    MPI_Comm comm_;
    int rank_, size_;
    WalkContext *context_;
    Messenger messenger_;
    PeerOrder peers_;
    Termination termination_;
    std::mt19937_64 split_random_;
    ProgressReport progress_;
    std::vector<std::unique_ptr<ItemProcessor>> processors_;  // [0] is the master's
    std::vector<uint64_t> progress_counts_;                   // rank 0: the last report of each rank
    double next_progress_ = 0, start_ = 0;
    int requests_outstanding_ = 0;  // work requests awaiting their reply (at most 2)
    int first_asked_ = -1;
    double asked_at_ = 0;
    bool progress_outstanding_ = false;
    bool terminated_ = false;
    RankResult result_;
};

}  // namespace pftw
#endif
