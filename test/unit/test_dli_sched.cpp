/*
 * test_dli_sched - unit tests (CMocka) of the probability scheduler's algorithm
 * (locality/scheduler/scheduler.h): the bookkeeping of D and D_i, the seeded draws,
 * equation (4) in both branches and the choices made where the paper is unclear
 * (probability.cpp), the static request order, the baselines, and the properties the
 * issue asks for: every chunk once, locality against greedy local-first, bytes in
 * proportion to speed, the same seed giving the same assignment. No MPI, no libdli
 * entry points: the C API has its own test (test_dli_sched_api).
 */
#include "scheduler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace dli::sched;

namespace {

// NODES nodes with RANKS_PER_NODE ranks each, CHUNKS chunks of CHUNK_BYTES with 1 to 3
// distinct holders (some, when with_orphans, with none), all drawn from SEED.
Problem random_problem(uint64_t seed, int nodes, int chunks, int ranks_per_node = 1, bool with_orphans = false,
                       int64_t chunk_bytes = 64) {
    Random random(seed);
    Problem problem;
    problem.nnodes = nodes;
    for (int node = 0; node < nodes; ++node)
        for (int r = 0; r < ranks_per_node; ++r) problem.rank_node.push_back(node);
    for (int chunk = 0; chunk < chunks; ++chunk) {
        size_t replicas = with_orphans ? random.below(4) : 1 + random.below(3);
        std::vector<int> holders;
        while (holders.size() < std::min(replicas, static_cast<size_t>(nodes))) {
            int node = static_cast<int>(random.below(static_cast<size_t>(nodes)));
            if (std::find(holders.begin(), holders.end(), node) == holders.end()) holders.push_back(node);
        }
        problem.chunk_nodes.push_back(holders);
        problem.chunk_bytes.push_back(chunk_bytes);
    }
    return problem;
}

// A problem spelled out: holders per chunk (1 byte each), one rank per node.
Problem spelled(int nodes, std::vector<std::vector<int>> holders) {
    Problem problem;
    problem.nnodes = nodes;
    for (int node = 0; node < nodes; ++node) problem.rank_node.push_back(node);
    problem.chunk_bytes.assign(holders.size(), 1);
    problem.chunk_nodes = std::move(holders);
    return problem;
}

void assert_each_chunk_once(const Problem &problem, const std::vector<int> &rank_of_chunk) {
    assert_int_equal(rank_of_chunk.size(), problem.chunk_bytes.size());
    for (int rank : rank_of_chunk) {
        assert_true(rank >= 0);
        assert_true(rank < static_cast<int>(problem.rank_node.size()));
    }
}

std::vector<int> static_probability(const Problem &problem, uint64_t seed, const std::vector<double> &speeds) {
    ProbabilityScheduler scheduler(problem, seed, speeds);
    return assign_in_request_order(problem, scheduler, speeds);
}

std::vector<double> equal_speeds(const Problem &problem) { return std::vector<double>(problem.rank_node.size(), 1.0); }

// ---- the pieces ----------------------------------------------------------------

void pool_removes_a_chunk_from_d_and_every_d_k(void **) {
    Problem problem = spelled(3, {{0, 1}, {1, 2}, {0}, {2, 0, 1}});
    problem.chunk_bytes = {10, 20, 30, 40};
    ChunkPool pool(problem);
    assert_int_equal(pool.local_bytes(0), 80);
    assert_int_equal(pool.local_bytes(1), 70);
    assert_int_equal(pool.local_bytes(2), 60);
    pool.remove(3);
    pool.remove(0);
    assert_false(pool.contains(0));
    assert_true(pool.contains(1));
    assert_int_equal(pool.remaining().size(), 2);
    assert_int_equal(pool.local_bytes(0), 30);
    assert_int_equal(pool.local_bytes(1), 20);
    assert_int_equal(pool.local_bytes(2), 20);
    assert_true(pool.local(0) == std::vector<int>{2});
    assert_true(pool.local(1) == std::vector<int>{1});
    assert_true(pool.local(2) == std::vector<int>{1});
    assert_int_equal(pool.lowest_remaining(), 1);
    pool.remove(1);
    pool.remove(2);
    assert_true(pool.empty());
    assert_int_equal(pool.lowest_remaining(), -1);
    for (int node = 0; node < 3; ++node) assert_int_equal(pool.local_bytes(node), 0);
}

void draws_come_from_the_standard_engine_alone(void **) {
    // mt19937_64's outputs are fixed by the standard (its first for seed 5489 is
    // 14514284786278117030); the conversions are ours, so they are the same anywhere.
    const uint64_t first = 14514284786278117030ull;
    Random random(5489);
    assert_true(random.uniform() == static_cast<double>(first >> 11) / 9007199254740992.0);
    Random again(5489);
    assert_int_equal(again.below(1000), first % 1000);
    Random bounded(7);
    for (int i = 0; i < 1000; ++i) assert_true(bounded.below(3) < 3);
}

// The frequency of CHUNK as rank REQUESTER's first pick over SEEDS seeds.
int first_picks(const Problem &problem, const std::vector<double> &speeds, int requester, int chunk, int seeds) {
    int count = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
        ProbabilityScheduler scheduler(problem, static_cast<uint64_t>(seed), speeds);
        count += scheduler.next(requester) == chunk;
    }
    return count;
}

void local_pick_follows_equation_4(void **) {
    // Node 0 holds chunks 0 (also on node 1, which has 3 chunks of local work) and 1
    // (also on node 2, which has 1): T_0 = 3, T_1 = 1, so P(0) = 3/4.
    Problem problem = spelled(3, {{0, 1}, {0, 2}, {1}, {1}});
    assert_in_range(first_picks(problem, {1, 1, 1}, 0, 0, 4000), 2900, 3100);
    // Node 1 three times faster: T_0 = 3/3 = 1 = T_1, so P(0) = 1/2.
    assert_in_range(first_picks(problem, {1, 3, 1}, 0, 0, 4000), 1900, 2100);
}

void exclusive_chunks_go_first(void **) {
    // Choice 3: chunk 2 only node 0 holds: it is taken before either shared chunk.
    Problem problem = spelled(3, {{0, 1}, {0, 2}, {0}, {1}});
    assert_int_equal(first_picks(problem, {1, 1, 1}, 0, 2, 500), 500);
    // And it is what makes the probability scheduler beat greedy's lowest-first here:
    // node 0 holds chunks 0 and 1, node 1 only chunk 0.
    Problem pair = spelled(2, {{0, 1}, {0}});
    GreedyLocalFirst greedy(pair);
    assert_int_equal(summarize(pair, assign_in_request_order(pair, greedy, {1, 1})).local_bytes, 1);
    for (uint64_t seed = 1; seed <= 20; ++seed)
        assert_int_equal(summarize(pair, static_probability(pair, seed, {1, 1})).local_bytes, 2);
}

void remote_pick_normalises_over_d(void **) {
    // Node 3 holds nothing: it draws from all of D. Chunks 0, 2, 3 are node 1's (3 of
    // local work: T = 3 each), chunk 1 is node 2's (T = 1): P(1) = 1 / (3 + 3 + 3 + 1).
    Problem problem = spelled(4, {{1}, {2}, {1}, {1}});
    assert_in_range(first_picks(problem, {1, 1, 1, 1}, 3, 1, 4000), 340, 460);
    // A chunk that no node holds is nobody's local work: it goes first.
    problem.chunk_nodes.push_back({});
    problem.chunk_bytes.push_back(1);
    assert_int_equal(first_picks(problem, {1, 1, 1, 1}, 3, 4, 500), 500);
}

void a_rank_gets_a_remote_chunk_only_when_its_node_has_none_left(void **) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        Problem problem = random_problem(seed, 7, 90, 2, true);
        ProbabilityScheduler scheduler(problem, seed);
        std::set<int> left;
        for (int c = 0; c < 90; ++c) left.insert(c);
        for (int turn = 0; !left.empty(); ++turn) {
            int rank = turn % static_cast<int>(problem.rank_node.size());
            bool local_left = std::any_of(left.begin(), left.end(), [&](int c) { return is_local(problem, c, rank); });
            int chunk = scheduler.next(rank);
            assert_int_equal(left.erase(chunk), 1);
            if (local_left) assert_true(is_local(problem, chunk, rank));
            scheduler.completed(rank, chunk, 1.0 + rank);
        }
        assert_int_equal(scheduler.next(0), -1);
    }
}

void measured_speeds_sum_over_a_node_and_default_to_the_mean(void **) {
    Problem problem = spelled(3, {{0}, {1}, {2}, {0}});
    problem.rank_node = {0, 0, 1, 2};  // two ranks on node 0
    problem.chunk_bytes = {100, 300, 50, 100};
    ProbabilityScheduler scheduler(problem, 1);
    assert_true(scheduler.node_speed(0) == 2.0 && scheduler.node_speed(1) == 1.0);  // the prior: 1 each
    scheduler.completed(0, 0, 2.0);   // rank 0: 50 bytes/s
    scheduler.completed(2, 1, 2.0);   // rank 2: 150 bytes/s
    // Rank 1 and rank 3 have no completion: the mean of the measured, 100.
    assert_true(scheduler.node_speed(0) == 150.0);
    assert_true(scheduler.node_speed(1) == 150.0);
    assert_true(scheduler.node_speed(2) == 100.0);
    scheduler.completed(0, 3, 2.0);   // rank 0: 200 bytes in 4 s
    assert_true(scheduler.node_speed(0) == 50.0 + 100.0);
}

// ---- the static form and the baselines ---------------------------------------------

// Records who asks, to see the request order.
class Recorder : public Policy {
public:
    explicit Recorder(int chunks) : left_(chunks) {}
    int next(int rank) override {
        if (left_ == 0) return -1;
        order.push_back(rank);
        return --left_;
    }
    std::vector<int> order;

private:
    int left_;
};

void equal_speeds_ask_round_robin_and_faster_ranks_ask_more(void **) {
    Problem problem = spelled(3, std::vector<std::vector<int>>(7));
    Recorder round_robin(7);
    assign_in_request_order(problem, round_robin, {1, 1, 1});
    assert_true(round_robin.order == (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
    // Clocks after each pick (bytes / speed): rank 0 1, 2; rank 1 0.5, 1, 1.5; rank 2 1.
    Recorder weighted(7);
    assign_in_request_order(problem, weighted, {1, 2, 1});
    assert_true(weighted.order == (std::vector<int>{0, 1, 2, 1, 0, 1, 2}));
}

void rank_offset_gives_contiguous_thirds(void **) {
    Problem problem = spelled(3, std::vector<std::vector<int>>(10));
    assert_true(rank_offset_partition(problem) == (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}));
}

void every_chunk_is_assigned_exactly_once(void **) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        Problem problem = random_problem(seed, 5, 77, 1 + static_cast<int>(seed % 3), seed % 2 == 0);
        std::vector<double> speeds = equal_speeds(problem);
        assert_each_chunk_once(problem, static_probability(problem, seed, speeds));
        GreedyLocalFirst greedy(problem);
        assert_each_chunk_once(problem, assign_in_request_order(problem, greedy, speeds));
        RandomOrder random(problem, seed);
        assert_each_chunk_once(problem, assign_in_request_order(problem, random, speeds));
        assert_each_chunk_once(problem, rank_offset_partition(problem));
    }
}

void locality_beats_greedy_over_a_set_of_seeds(void **) {
    // Algorithm 1 draws at random, so one draw can leave a node without local chunks
    // where greedy's lowest-first did not: no single run is guaranteed to beat greedy
    // (on clusters like these it lost 20 of 400 runs, by at most 5 points). What holds:
    // over these 8 clusters x 10 seeds it keeps more bytes local than greedy in total,
    // and on every cluster its mean over the seeds is no more than 1 point below.
    int64_t probability_local = 0, greedy_local = 0;
    for (uint64_t cluster = 1; cluster <= 8; ++cluster) {
        Random shape(cluster);
        Problem problem = random_problem(cluster, 4 + static_cast<int>(shape.below(12)), 200);
        std::vector<double> speeds;
        for (size_t r = 0; r < problem.rank_node.size(); ++r) speeds.push_back(1 + 3 * shape.uniform());
        GreedyLocalFirst greedy(problem);
        const Summary by_greedy = summarize(problem, assign_in_request_order(problem, greedy, speeds));
        int64_t cluster_local = 0;
        for (uint64_t seed = 1; seed <= 10; ++seed)
            cluster_local += summarize(problem, static_probability(problem, seed, speeds)).local_bytes;
        assert_true(cluster_local >= 10 * by_greedy.local_bytes - by_greedy.total_bytes / 10);
        probability_local += cluster_local;
        greedy_local += 10 * by_greedy.local_bytes;
    }
    assert_true(probability_local > greedy_local);
}

void static_bytes_follow_speeds_1_2_4(void **) {
    // 140 chunks of 64 bytes on 3 nodes, every chunk everywhere (no locality to trade).
    Problem problem = spelled(3, std::vector<std::vector<int>>(140, {0, 1, 2}));
    problem.chunk_bytes.assign(140, 64);
    const std::vector<double> speeds = {1, 2, 4};
    Summary summary = summarize(problem, static_probability(problem, 3, speeds));
    // The proportional share is 64 * 140 * s / 7: 1280, 2560, 5120 bytes; a rank asks
    // again only while its clock is the lowest, so it is at most one chunk over.
    assert_int_equal(summary.bytes_of_rank[0], 1280);
    assert_int_equal(summary.bytes_of_rank[1], 2560);
    assert_int_equal(summary.bytes_of_rank[2], 5120);
    // Uneven: 101 chunks. Each rank is within one chunk of 64 * 101 * s / 7.
    problem = spelled(3, std::vector<std::vector<int>>(101, {0, 1, 2}));
    problem.chunk_bytes.assign(101, 64);
    summary = summarize(problem, static_probability(problem, 3, speeds));
    for (size_t r = 0; r < 3; ++r)
        assert_true(std::fabs(static_cast<double>(summary.bytes_of_rank[r]) - 64.0 * 101 * speeds[r] / 7) <= 64);
}

void same_seed_same_assignment_other_seeds_differ(void **) {
    Problem problem = random_problem(11, 9, 300, 2, true);
    std::vector<double> speeds = equal_speeds(problem);
    std::vector<int> first = static_probability(problem, 42, speeds);
    assert_true(first == static_probability(problem, 42, speeds));
    int differ = 0;
    for (uint64_t seed = 43; seed < 48; ++seed) differ += static_probability(problem, seed, speeds) != first;
    assert_int_equal(differ, 5);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pool_removes_a_chunk_from_d_and_every_d_k),
        cmocka_unit_test(draws_come_from_the_standard_engine_alone),
        cmocka_unit_test(local_pick_follows_equation_4),
        cmocka_unit_test(exclusive_chunks_go_first),
        cmocka_unit_test(remote_pick_normalises_over_d),
        cmocka_unit_test(a_rank_gets_a_remote_chunk_only_when_its_node_has_none_left),
        cmocka_unit_test(measured_speeds_sum_over_a_node_and_default_to_the_mean),
        cmocka_unit_test(equal_speeds_ask_round_robin_and_faster_ranks_ask_more),
        cmocka_unit_test(rank_offset_gives_contiguous_thirds),
        cmocka_unit_test(every_chunk_is_assigned_exactly_once),
        cmocka_unit_test(locality_beats_greedy_over_a_set_of_seeds),
        cmocka_unit_test(static_bytes_follow_speeds_1_2_4),
        cmocka_unit_test(same_seed_same_assignment_other_seeds_differ),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
