// baselines.cpp - what the probability scheduler is measured against: the static
// partition by rank offset that MPI codes use today, greedy local-first, and random.
#include <algorithm>

#include "scheduler.h"

namespace dli::sched {

int GreedyLocalFirst::next(int rank) {
    const std::vector<int> &local = pool_.local(problem_.rank_node[static_cast<size_t>(rank)]);
    const int chunk = local.empty() ? pool_.lowest_remaining() : *std::min_element(local.begin(), local.end());
    if (chunk >= 0) pool_.remove(chunk);
    return chunk;
}

int RandomOrder::next(int) {
    if (pool_.empty()) return -1;
    const int chunk = pool_.remaining()[random_.below(pool_.remaining().size())];
    pool_.remove(chunk);
    return chunk;
}

std::vector<int> rank_offset_partition(const Problem &problem) {
    const auto nchunks = static_cast<int64_t>(problem.chunk_bytes.size());
    const auto nranks = static_cast<int64_t>(problem.rank_node.size());
    std::vector<int> rank_of_chunk(static_cast<size_t>(nchunks));
    for (int64_t rank = 0; rank < nranks; ++rank)
        for (int64_t chunk = rank * nchunks / nranks; chunk < (rank + 1) * nchunks / nranks; ++chunk)
            rank_of_chunk[static_cast<size_t>(chunk)] = static_cast<int>(rank);
    return rank_of_chunk;
}

}  // namespace dli::sched
