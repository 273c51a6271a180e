// probability.cpp - Algorithm 1 of DL-MPI, the probability based data scheduler.
//
// When a rank on node i asks for work and D_i (the unprocessed chunks node i holds) is
// not empty, it gets dx in D_i with probability P(dx) = T_dx / sum of T_X over D_i,
// where T_dx = min over the OTHER nodes k holding dx of |D_k| / s_k (equations 3 and 4):
// the sooner another holder runs out of local work, the more likely it will want dx,
// so the less likely node i takes it. When D_i is empty, the draw is over all of D
// (lines 17-23). dx then leaves D and every D_k. Where the paper is unclear:
//
// 1. What to normalise over. Equation (4) and line 13 divide by the sum over D_i, the
//    set drawn from. Line 21 draws from D but still divides by the sum over D_i, which
//    is empty on that branch (0/0). Dividing by the sum over the set drawn from is the
//    only reading that gives a probability distribution, so both branches do that:
//    P(dx) = T_dx / sum over the candidates X of T_X, candidates D_i or D.
// 2. |D_k| is counted in bytes, not chunks: with s_k in bytes per second, |D_k| / s_k
//    is then the seconds node k needs for its local work, which is what the paper
//    means ("remaining local execution time"). For equal chunks the two agree; with
//    HDFS's short last block, bytes are the honest measure.
// 3. No other holder (local branch). T_dx is the time until another node would reach
//    dx locally; for a chunk only node i holds, that time is infinite. We take the
//    formula's limit: all the probability goes to such chunks, drawn uniformly among
//    them, and the shared ones are drawn by equation (4) only once none is left.
//    Taking an exclusive chunk first costs no other node any locality.
// 4. The remote branch. D_i is empty, so every holder of a chunk is "another node",
//    and T_dx is the least remaining local time among them: the chunk whose holders
//    have the most local work left goes first, as they are the least likely to reach
//    it themselves. A chunk that no node (no rank's host) holds has T_dx infinite, as in
//    3: nobody will ever read it locally, so it goes before any chunk that someone could.
//    A node that runs no rank is no holder: it never processes anything.
// 5. Speeds. s_i is the sum of the speeds of the ranks on node i (they work side by
//    side, so the node gets through its D_i that much faster). In the static form the
//    caller gives them. In the dynamic form a rank's speed is the bytes it completed
//    over the seconds it reported; a rank with no completion yet keeps the prior. The
//    paper's mpiBLAST starts every speed at 1 in tasks per time; in bytes per second a
//    literal 1 would make an unmeasured node look a hundred million times slower than a
//    measured one, so the prior is the mean of the measured ranks' speeds (1 while none
//    is measured): "as fast as the others", which is what 1-for-all meant.
// 6. Weights all zero (only empty chunks left): drawn uniformly.
// 7. Randomness: one uniform draw in [0, 1) per pick, scaled by the sum of the weights
//    and walked through the candidates in their array order, which depends only on the
//    inputs and earlier picks. The same seed and inputs give the same assignment.
#include <cmath>
#include <limits>
#include <numeric>

#include "scheduler.h"

namespace dli::sched {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}

ProbabilityScheduler::ProbabilityScheduler(const Problem &problem, uint64_t seed)
    : problem_(problem),
      pool_(problem),
      random_(seed),
      done_bytes_(problem.rank_node.size(), 0),
      busy_seconds_(problem.rank_node.size(), 0.0),
      ranks_on_node_(static_cast<size_t>(problem.nnodes), 0) {
    for (int node : problem.rank_node) ++ranks_on_node_[static_cast<size_t>(node)];
    refresh_speeds();
}

ProbabilityScheduler::ProbabilityScheduler(const Problem &problem, uint64_t seed,
                                           const std::vector<double> &rank_speeds)
    : ProbabilityScheduler(problem, seed) {
    fixed_speed_ = rank_speeds;
    refresh_speeds();
}

double ProbabilityScheduler::rank_speed(int rank, double prior) const {
    const auto r = static_cast<size_t>(rank);
    if (!fixed_speed_.empty()) return fixed_speed_[r];
    return busy_seconds_[r] > 0 ? static_cast<double>(done_bytes_[r]) / busy_seconds_[r] : prior;
}

void ProbabilityScheduler::refresh_speeds() {
    double measured_sum = 0;
    int measured = 0;
    for (size_t r = 0; r < busy_seconds_.size(); ++r)
        if (busy_seconds_[r] > 0) {
            measured_sum += static_cast<double>(done_bytes_[r]) / busy_seconds_[r];
            ++measured;
        }
    const double prior = measured ? measured_sum / measured : 1.0;
    node_speed_.assign(static_cast<size_t>(problem_.nnodes), 0.0);
    for (size_t r = 0; r < problem_.rank_node.size(); ++r)
        node_speed_[static_cast<size_t>(problem_.rank_node[r])] += rank_speed(static_cast<int>(r), prior);
}

void ProbabilityScheduler::completed(int rank, int chunk, double seconds) {
    if (!fixed_speed_.empty() || !(seconds > 0)) return;
    done_bytes_[static_cast<size_t>(rank)] += problem_.chunk_bytes[static_cast<size_t>(chunk)];
    busy_seconds_[static_cast<size_t>(rank)] += seconds;
    refresh_speeds();
}

double ProbabilityScheduler::holders_time(int chunk, int except_node) const {
    double soonest = kNever;
    for (int node : problem_.chunk_nodes[static_cast<size_t>(chunk)]) {
        const auto k = static_cast<size_t>(node);
        if (node == except_node || ranks_on_node_[k] == 0) continue;
        soonest = std::min(soonest, static_cast<double>(pool_.local_bytes(node)) / node_speed_[k]);
    }
    return soonest;
}

int ProbabilityScheduler::draw(const std::vector<int> &candidates, int requester_node) {
    weights_.resize(candidates.size());
    size_t never = 0;
    for (size_t c = 0; c < candidates.size(); ++c) {
        weights_[c] = holders_time(candidates[c], requester_node);
        if (std::isinf(weights_[c])) ++never;
    }
    if (never) {  // choice 3: the limit of equation (4) as those T_dx grow without bound
        size_t pick = random_.below(never);
        for (size_t c = 0;; ++c)
            if (std::isinf(weights_[c]) && pick-- == 0) return candidates[c];
    }
    const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
    if (!(total > 0)) return candidates[random_.below(candidates.size())];
    double target = random_.uniform() * total;
    size_t last_weighted = 0;
    for (size_t c = 0; c < candidates.size(); ++c) {
        if (weights_[c] <= 0) continue;
        if (target < weights_[c]) return candidates[c];
        target -= weights_[c];
        last_weighted = c;
    }
    return candidates[last_weighted];  // what rounding left over
}

int ProbabilityScheduler::next(int rank) {
    if (pool_.empty()) return -1;
    const int node = problem_.rank_node[static_cast<size_t>(rank)];
    const std::vector<int> &local = pool_.local(node);
    const int chunk = draw(local.empty() ? pool_.remaining() : local, node);
    pool_.remove(chunk);
    return chunk;
}

double ProbabilityScheduler::node_speed(int node) const { return node_speed_[static_cast<size_t>(node)]; }

}  // namespace dli::sched
