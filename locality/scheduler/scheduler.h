// scheduler.h - the probability scheduler of DL-MPI (Algorithm 1) and the baselines it is
// measured against. The C API (DLI_Sched_*) is a thin layer over this (sched_api.cpp).
// See the design comment in probability.cpp for the choices where the paper is unclear.
//
// Nothing here needs MPI or the rest of libdli: bench/locality_sim compiles these files
// into its simulation as they are.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace dli::sched {

// The problem in numbers: which nodes hold each chunk, and which node each rank runs on.
struct Problem {
    std::vector<int64_t> chunk_bytes;               // per chunk
    std::vector<std::vector<int>> chunk_nodes;      // per chunk: nodes holding a replica
    int nnodes = 0;
    std::vector<int> rank_node;                     // per rank: its node
};

// Whether RANK's node holds a replica of CHUNK.
bool is_local(const Problem &problem, int chunk, int rank);

// Seeded randomness that is the same everywhere: std::mt19937_64 is specified bit for bit
// by the standard, its distributions are not, so the draws are made here.
class Random {
public:
    explicit Random(uint64_t seed) : engine_(seed) {}
    double uniform();          // in [0, 1), from the top 53 bits of one draw
    size_t below(size_t n);    // uniform in [0, n), n > 0, without modulo bias
private:
    std::mt19937_64 engine_;
};

// The unprocessed chunks D of Algorithm 1 and each node's share D_i, with the bytes in
// each D_i. Removing a chunk takes it out of D and of every D_k, in O(replicas).
class ChunkPool {
public:
    explicit ChunkPool(const Problem &problem);
    bool empty() const { return remaining_.empty(); }
    const std::vector<int> &remaining() const { return remaining_; }   // D, in no set order
    const std::vector<int> &local(int node) const { return local_[static_cast<size_t>(node)]; }
    int64_t local_bytes(int node) const { return local_bytes_[static_cast<size_t>(node)]; }
    bool contains(int chunk) const { return where_[static_cast<size_t>(chunk)] >= 0; }
    int lowest_remaining();    // the lowest-numbered chunk of D, -1 when D is empty
    void remove(int chunk);

private:
    const Problem &problem_;
    std::vector<int> remaining_;
    std::vector<int> where_;                        // chunk -> position in remaining_, -1: done
    std::vector<std::vector<int>> local_;           // node -> D_i
    std::vector<std::vector<int>> local_where_;     // chunk -> its position in local_ of each holder
    std::vector<int64_t> local_bytes_;
    size_t lowest_ = 0;                             // no chunk below it remains
};

// A scheduling policy: asked for a chunk whenever a rank is idle, told when it finished.
class Policy {
public:
    virtual ~Policy() = default;
    virtual int next(int rank) = 0;                 // a chunk, -1 when none is left
    virtual void completed(int /*rank*/, int /*chunk*/, double /*seconds*/) {}
};

// Algorithm 1. With rank speeds given, they are used as they are (the static form);
// without, each rank's speed is measured from the chunks it completes.
class ProbabilityScheduler : public Policy {
public:
    ProbabilityScheduler(const Problem &problem, uint64_t seed);
    ProbabilityScheduler(const Problem &problem, uint64_t seed, const std::vector<double> &rank_speeds);
    int next(int rank) override;
    void completed(int rank, int chunk, double seconds) override;
    double node_speed(int node) const;              // s_i: the sum of its ranks' speeds

private:
    double rank_speed(int rank, double prior) const;
    void refresh_speeds();                          // node_speed_ from the ranks' speeds
    double holders_time(int chunk, int except_node) const;  // T_dx (equation 3)
    int draw(const std::vector<int> &candidates, int requester_node);

    const Problem &problem_;
    ChunkPool pool_;
    Random random_;
    std::vector<double> fixed_speed_;               // per rank, empty: measured
    std::vector<int64_t> done_bytes_;               // per rank
    std::vector<double> busy_seconds_;              // per rank
    std::vector<int> ranks_on_node_;
    std::vector<double> node_speed_;                // s_i
    std::vector<double> weights_;                   // scratch of draw()
};

// Greedy local-first: a local chunk if the node has one (the lowest-numbered), else the
// lowest-numbered chunk left.
class GreedyLocalFirst : public Policy {
public:
    explicit GreedyLocalFirst(const Problem &problem) : problem_(problem), pool_(problem) {}
    int next(int rank) override;

private:
    const Problem &problem_;
    ChunkPool pool_;
};

// Locality-blind: any chunk left, uniformly at random.
class RandomOrder : public Policy {
public:
    RandomOrder(const Problem &problem, uint64_t seed) : pool_(problem), random_(seed) {}
    int next(int rank) override;

private:
    ChunkPool pool_;
    Random random_;
};

// What MPI codes do today: rank r reads the r-th contiguous 1/N of the chunks (the
// paper's offset = rank * Avg_access). Returns the rank of each chunk.
std::vector<int> rank_offset_partition(const Problem &problem);

// The paper's static form: the policy is asked in request order, the rank whose clock
// (bytes so far / its speed) is lowest asking next, ties to the lowest rank: with equal
// speeds that is round robin. Returns the rank of each chunk.
std::vector<int> assign_in_request_order(const Problem &problem, Policy &policy,
                                         const std::vector<double> &rank_speeds);

// An assignment in bytes: per rank, and how many were on a node holding them.
struct Summary {
    std::vector<int64_t> bytes_of_rank;
    int64_t local_bytes = 0;
    int64_t total_bytes = 0;
};
Summary summarize(const Problem &problem, const std::vector<int> &rank_of_chunk);

// Locality remapping (DLI_Sched_remap, shares_layout.cpp). A program whose ranks read
// equal shares by offset, rank r the bytes from r * (size / nranks), the last rank to the
// end: where each share ends, ascending, the last being size.
std::vector<int64_t> rank_offset_share_ends(int64_t size, int nranks);
// The bytes ranks read from chunks their nodes hold when the chunks lie in `order`.
int64_t local_bytes_in_shares(const Problem &problem, const std::vector<int> &order,
                              const std::vector<int64_t> &share_end);
// Every chunk once, in the order that puts each share in chunks its rank's node holds,
// as far as the assignment and the placement allow. Deterministic.
std::vector<int> shares_layout(const Problem &problem, const std::vector<int> &rank_of_chunk,
                               const std::vector<int64_t> &share_end);

}  // namespace dli::sched
