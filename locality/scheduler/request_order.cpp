// request_order.cpp - the paper's static form (every rank asks in turn, as if it had
// finished its last chunk at the speed it was given) and the sums that judge an
// assignment.
#include <algorithm>
#include <queue>
#include <tuple>

#include "scheduler.h"

namespace dli::sched {

bool is_local(const Problem &problem, int chunk, int rank) {
    const std::vector<int> &holders = problem.chunk_nodes[static_cast<size_t>(chunk)];
    return std::find(holders.begin(), holders.end(), problem.rank_node[static_cast<size_t>(rank)]) !=
           holders.end();
}

std::vector<int> assign_in_request_order(const Problem &problem, Policy &policy,
                                         const std::vector<double> &rank_speeds) {
    std::vector<int> rank_of_chunk(problem.chunk_bytes.size(), -1);
    std::vector<int64_t> bytes(rank_speeds.size(), 0);
    // (clock, rank), lowest first: the rank that would be idle first asks first, and
    // equal clocks go to the lower rank, which makes equal speeds round robin.
    using Request = std::tuple<double, int>;
    std::priority_queue<Request, std::vector<Request>, std::greater<Request>> idle;
    for (size_t rank = 0; rank < rank_speeds.size(); ++rank) idle.emplace(0.0, static_cast<int>(rank));
    while (!idle.empty()) {
        const int rank = std::get<1>(idle.top());
        idle.pop();
        const int chunk = policy.next(rank);
        if (chunk < 0) break;  // D is empty: every other rank would hear the same
        rank_of_chunk[static_cast<size_t>(chunk)] = rank;
        const auto r = static_cast<size_t>(rank);
        bytes[r] += problem.chunk_bytes[static_cast<size_t>(chunk)];
        // From the total, not summed step by step, so that no rounding drifts the order.
        idle.emplace(static_cast<double>(bytes[r]) / rank_speeds[r], rank);
    }
    return rank_of_chunk;
}

Summary summarize(const Problem &problem, const std::vector<int> &rank_of_chunk) {
    Summary summary;
    summary.bytes_of_rank.assign(problem.rank_node.size(), 0);
    for (size_t chunk = 0; chunk < rank_of_chunk.size(); ++chunk) {
        const int64_t bytes = problem.chunk_bytes[chunk];
        const int rank = rank_of_chunk[chunk];
        summary.total_bytes += bytes;
        if (rank < 0) continue;
        summary.bytes_of_rank[static_cast<size_t>(rank)] += bytes;
        if (is_local(problem, static_cast<int>(chunk), rank)) summary.local_bytes += bytes;
    }
    return summary;
}

}  // namespace dli::sched
