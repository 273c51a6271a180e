// totals.h - a run's figures: the PFTW_Stats of each walk added up on every rank,
// then the per-rank figures combined on rank 0.
#ifndef PFTW_TOOL_TOTALS_H
#define PFTW_TOOL_TOTALS_H

#include "pftw.h"

#include <cstdint>
#include <vector>

namespace pftw_tool {

// Sums over the walks of one run. The first block holds PFTW_Stats totals (the same
// on every rank); the second is this rank's own, combined over ranks by combine_ranks.
struct RunTotals {
    uint64_t entries = 0, directories = 0, files = 0, symlinks = 0, others = 0;
    uint64_t bytes = 0, errors = 0, messages = 0, message_bytes = 0;
    double seconds = 0;

    uint64_t items = 0, requests_fruitful = 0, requests_unfruitful = 0, requests_served = 0;
    uint64_t token_rounds = 0, matched = 0;
    double time_visit = 0, time_stat = 0, time_readdir = 0, time_comm = 0;
    int threads_seen = 0;
    std::vector<uint64_t> messages_to, bytes_to;  // [ranks]

    void add_walk(const PFTW_Stats &stats);
};

// The run as rank 0 reports it.
struct RunSummary {
    int ranks = 0;
    RunTotals sums;          // per-rank figures summed over ranks (token_rounds: rank 0's,
                             // threads_seen: the most on any rank)
    uint64_t items_max = 0;  // the busiest rank's entries over the run
    double items_mean = 0;   // entries / ranks
    // [from * ranks + to], only when asked for (the --stats-matrix)
    std::vector<uint64_t> matrix_messages, matrix_bytes;

    double load_balance() const { return items_mean > 0 ? double(items_max) / items_mean : 0; }
    double entries_per_second() const { return sums.seconds > 0 ? double(sums.entries) / sums.seconds : 0; }
};

// Collective over comm; summary is filled on rank 0. Returns an MPI error code.
int combine_ranks(MPI_Comm comm, const RunTotals &mine, bool with_matrix, RunSummary &summary);

}  // namespace pftw_tool

#endif
