// pool.cpp - D and the D_i of Algorithm 1: which chunks are left, and which of them each
// node holds. Both are unordered arrays with positions recorded, so that a removal is a
// swap with the last element instead of a search.
#include "scheduler.h"

#include <numeric>

namespace dli::sched {

ChunkPool::ChunkPool(const Problem &problem)
    : problem_(problem),
      remaining_(problem.chunk_bytes.size()),
      where_(problem.chunk_bytes.size()),
      local_(static_cast<size_t>(problem.nnodes)),
      local_where_(problem.chunk_bytes.size()),
      local_bytes_(static_cast<size_t>(problem.nnodes), 0) {
    std::iota(remaining_.begin(), remaining_.end(), 0);
    std::iota(where_.begin(), where_.end(), 0);
    for (size_t chunk = 0; chunk < remaining_.size(); ++chunk)
        for (int node : problem.chunk_nodes[chunk]) {
            auto &share = local_[static_cast<size_t>(node)];
            local_where_[chunk].push_back(static_cast<int>(share.size()));
            share.push_back(static_cast<int>(chunk));
            local_bytes_[static_cast<size_t>(node)] += problem.chunk_bytes[chunk];
        }
}

int ChunkPool::lowest_remaining() {
    while (lowest_ < where_.size() && where_[lowest_] < 0) ++lowest_;
    return lowest_ < where_.size() ? static_cast<int>(lowest_) : -1;
}

void ChunkPool::remove(int chunk) {
    const auto c = static_cast<size_t>(chunk);
    const int moved = remaining_.back();
    remaining_[static_cast<size_t>(where_[c])] = moved;
    where_[static_cast<size_t>(moved)] = where_[c];
    remaining_.pop_back();
    where_[c] = -1;

    const std::vector<int> &holders = problem_.chunk_nodes[c];
    for (size_t j = 0; j < holders.size(); ++j) {
        const auto node = static_cast<size_t>(holders[j]);
        std::vector<int> &share = local_[node];
        const int position = local_where_[c][j];
        const int last = share.back();
        share[static_cast<size_t>(position)] = last;
        // The moved chunk's record of its position on this node.
        const std::vector<int> &last_holders = problem_.chunk_nodes[static_cast<size_t>(last)];
        for (size_t k = 0; k < last_holders.size(); ++k)
            if (last_holders[k] == holders[j]) local_where_[static_cast<size_t>(last)][k] = position;
        share.pop_back();
        local_bytes_[node] -= problem_.chunk_bytes[c];
    }
}

}  // namespace dli::sched
