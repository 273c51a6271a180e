// locality_sim.cpp - the simulation behind bench/locality_sim: the schedulers of
// locality/scheduler on a synthetic disk-attached cluster.
//
//   locality_sim NODES CHUNKS_PER_NODE SEED [REMOTE_PENALTY]
//
// The cluster: NODES nodes, one rank each, NODES x CHUNKS_PER_NODE chunks of equal size,
// each with replicas on 3 distinct nodes drawn uniformly (HDFS's placement without racks),
// node speeds drawn uniformly from 1x to 4x. All of it from SEED.
//
// The time model: the work is data-intensive, so a chunk's time is the time to read it.
// Node i reads a local chunk in 1 / s_i units (1 unit: a 1x node's local chunk) and a
// remote one REMOTE_PENALTY times slower (default 4, the paper's gap between local and
// network reads at about 100 nodes).
//
// The schedulers: the rank-offset static partition (rank r reads the r-th contiguous
// 1/N of the chunks, start to end), and three dynamic ones in an event simulation in
// which every node that becomes idle asks for its next chunk at once (ties: lowest
// rank first) and reports the one it finished: greedy local-first, random, and the
// probability scheduler (Algorithm 1, speeds measured from the completions as
// DLI_Sched_complete does; it is not told the speeds or the penalty).
//
// Prints one JSON line per scheduler: {"nodes", "seed", "scheduler", "locality_percent",
// "makespan", "ideal"}; ideal is the makespan with every read local and the work split
// exactly in proportion to speed (total chunks / sum of speeds), a floor no schedule
// reaches.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "scheduler.h"

using namespace dli::sched;

namespace {

struct Cluster {
    Problem problem;
    std::vector<double> speed;  // per node (= per rank)
    double remote_penalty = 4;
};

Cluster make_cluster(int nodes, int chunks_per_node, uint64_t seed, double remote_penalty) {
    Random random(seed);
    Cluster cluster;
    cluster.remote_penalty = remote_penalty;
    Problem &problem = cluster.problem;
    problem.nnodes = nodes;
    for (int rank = 0; rank < nodes; ++rank) problem.rank_node.push_back(rank);
    for (int node = 0; node < nodes; ++node) cluster.speed.push_back(1.0 + 3.0 * random.uniform());
    const int chunks = nodes * chunks_per_node;
    for (int chunk = 0; chunk < chunks; ++chunk) {
        std::vector<int> holders;
        while (holders.size() < 3 && static_cast<int>(holders.size()) < nodes) {
            const int node = static_cast<int>(random.below(static_cast<size_t>(nodes)));
            bool taken = false;
            for (int h : holders) taken = taken || h == node;
            if (!taken) holders.push_back(node);
        }
        problem.chunk_nodes.push_back(holders);
        problem.chunk_bytes.push_back(1);  // one unit; equal chunks, as HDFS blocks
    }
    return cluster;
}

double read_time(const Cluster &cluster, int chunk, int rank) {
    const double local = 1.0 / cluster.speed[static_cast<size_t>(rank)];
    return is_local(cluster.problem, chunk, rank) ? local : local * cluster.remote_penalty;
}

struct Outcome {
    double locality_percent;
    double makespan;
};

Outcome judge(const Cluster &cluster, const std::vector<int> &rank_of_chunk, double makespan) {
    Summary summary = summarize(cluster.problem, rank_of_chunk);
    return {100.0 * static_cast<double>(summary.local_bytes) / static_cast<double>(summary.total_bytes),
            makespan};
}

Outcome run_rank_offset(const Cluster &cluster) {
    std::vector<int> rank_of_chunk = rank_offset_partition(cluster.problem);
    std::vector<double> busy(cluster.speed.size(), 0.0);
    for (size_t chunk = 0; chunk < rank_of_chunk.size(); ++chunk)
        busy[static_cast<size_t>(rank_of_chunk[chunk])] += read_time(cluster, static_cast<int>(chunk), rank_of_chunk[chunk]);
    double makespan = 0;
    for (double b : busy) makespan = std::max(makespan, b);
    return judge(cluster, rank_of_chunk, makespan);
}

// Whenever a rank is idle it reports the chunk it finished and asks for the next.
Outcome run_dynamic(const Cluster &cluster, Policy &policy) {
    std::vector<int> rank_of_chunk(cluster.problem.chunk_bytes.size(), -1);
    using Event = std::tuple<double, int, int, double>;  // (time idle, rank, chunk done, its seconds)
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> idle;
    for (int rank = 0; rank < static_cast<int>(cluster.speed.size()); ++rank) idle.emplace(0.0, rank, -1, 0.0);
    double makespan = 0;
    while (!idle.empty()) {
        auto [now, rank, done, seconds] = idle.top();
        idle.pop();
        makespan = std::max(makespan, now);
        if (done >= 0) policy.completed(rank, done, seconds);
        const int chunk = policy.next(rank);
        if (chunk < 0) continue;  // this rank stops; the others finish theirs
        rank_of_chunk[static_cast<size_t>(chunk)] = rank;
        const double time = read_time(cluster, chunk, rank);
        idle.emplace(now + time, rank, chunk, time);
    }
    return judge(cluster, rank_of_chunk, makespan);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        std::fprintf(stderr, "usage: locality_sim NODES CHUNKS_PER_NODE SEED [REMOTE_PENALTY]\n");
        return 2;
    }
    const int nodes = std::atoi(argv[1]), chunks_per_node = std::atoi(argv[2]);
    const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
    const double penalty = argc == 5 ? std::atof(argv[4]) : 4.0;
    if (nodes < 1 || chunks_per_node < 1 || !(penalty >= 1)) {
        std::fprintf(stderr, "locality_sim: NODES and CHUNKS_PER_NODE must be >= 1, REMOTE_PENALTY >= 1\n");
        return 2;
    }
    const Cluster cluster = make_cluster(nodes, chunks_per_node, seed, penalty);
    double speed_sum = 0;
    for (double s : cluster.speed) speed_sum += s;
    const double ideal = static_cast<double>(cluster.problem.chunk_bytes.size()) / speed_sum;

    // The dynamic schedulers' own seeds differ from the cluster's, so that their draws
    // are not the placement's.
    const uint64_t policy_seed = seed * 1000003 + 17;
    std::vector<std::pair<const char *, std::function<Outcome()>>> schedulers = {
        {"rank_offset", [&] { return run_rank_offset(cluster); }},
        {"greedy", [&] { GreedyLocalFirst p(cluster.problem); return run_dynamic(cluster, p); }},
        {"random", [&] { RandomOrder p(cluster.problem, policy_seed); return run_dynamic(cluster, p); }},
        {"probability", [&] { ProbabilityScheduler p(cluster.problem, policy_seed); return run_dynamic(cluster, p); }},
    };
    for (auto &[name, run] : schedulers) {
        const Outcome outcome = run();
        std::printf("{\"nodes\": %d, \"chunks_per_node\": %d, \"seed\": %llu, \"remote_penalty\": %g, "
                    "\"scheduler\": \"%s\", \"locality_percent\": %.3f, \"makespan\": %.6f, \"ideal\": %.6f}\n",
                    nodes, chunks_per_node, static_cast<unsigned long long>(seed), penalty, name,
                    outcome.locality_percent, outcome.makespan, ideal);
    }
    return 0;
}
