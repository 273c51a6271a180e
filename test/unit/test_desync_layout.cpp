/*
 * test_desync_layout - unit tests (CMocka) of libdesync's chunk layouts
 * (desync/lib/layout.cpp, NOTES.md 2.7): the recursive bisection by weight, on
 * generated files (1-D to 3-D, random extents) and weights. Every layout must cover
 * each block of a period exactly once with rectangles inside the file, list its
 * leases by process, give every process at least one block, and give the processes
 * counts whose slowest share (blocks / weight) is the shortest that whole blocks
 * allow, by an oracle computed independently here. Equal weights on a square number
 * of processes still give the squares. No MPI is started: layouts are pure.
 */
#include "layout.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace desync;

namespace {

// A job of one file; the weights are the layout's at version 0 (desync_chunks) and
// are passed to period_leases for later periods.
Job job_of(const std::vector<int> &extent, int rebalance, const std::vector<double> &weights = {})
{
    Job job;
    job.layout.weights = weights;
    FileShape f;
    f.id = 3;
    f.versions = 100;
    f.extent = extent;
    job.files = {f};
    job.rebalance = rebalance;
    return job;
}

long long linear(const std::vector<int> &extent, const std::vector<int> &at)
{
    long long cell = 0;
    for (size_t k = 0; k < extent.size(); k++)
        cell = cell * extent[k] + at[k];
    return cell;
}

// Each block's owner, checking that the leases tile the file once, lie inside it,
// belong to the period, and come by process; counts receives each process's blocks.
std::vector<int> owners_of(const Job &job, const std::vector<Lease> &leases, int processes, int v0,
                           std::vector<long long> *counts)
{
    const FileShape &f = job.files[0];
    std::vector<int> owner(static_cast<size_t>(f.blocks_per_version()), -1);
    counts->assign(static_cast<size_t>(processes), 0);
    int previous_node = 0;
    for (const Lease &l : leases) {
        assert_int_equal(l.file, f.id);
        assert_int_equal(l.v0, v0);
        assert_int_equal(l.v1, period_end(job, f, v0));
        assert_true(l.node >= previous_node && l.node < processes);
        previous_node = l.node;
        assert_int_equal(l.lo.size(), f.extent.size());
        for (size_t k = 0; k < l.lo.size(); k++)
            assert_true(0 <= l.lo[k] && l.lo[k] <= l.hi[k] && l.hi[k] < f.extent[k]);
        for (const Address &a : l.addresses(v0)) {
            std::vector<int> at(a.d + 2, a.d + a.n);
            long long cell = linear(f.extent, at);
            assert_int_equal(owner[static_cast<size_t>(cell)], -1); // once
            owner[static_cast<size_t>(cell)] = l.node;
        }
        (*counts)[static_cast<size_t>(l.node)] += l.blocks();
    }
    for (int o : owner)
        assert_true(o >= 0); // every block
    return owner;
}

// The oracle: the shortest slowest share T such that giving each process
// max(1, floor(T * weight)) blocks covers them all, found among the candidate
// times k / weight; no shorter than a single block on the slowest process.
double best_slowest_share(long long blocks, const std::vector<double> &weights)
{
    std::vector<double> candidates;
    for (double w : weights)
        for (long long k = 1; k <= blocks; k++)
            candidates.push_back(static_cast<double>(k) / w);
    std::sort(candidates.begin(), candidates.end());
    for (double t : candidates) {
        long long covered = 0;
        for (double w : weights)
            covered += std::max(1LL, static_cast<long long>(t * w + 1e-9));
        if (covered >= blocks)
            return std::max(t, 1 / *std::min_element(weights.begin(), weights.end()));
    }
    return candidates.back();
}

void check_layout(const std::vector<int> &extent, const std::vector<double> &weights, int v0)
{
    Job job = job_of(extent, 10, weights);
    int processes = static_cast<int>(weights.size());
    std::vector<Lease> leases = period_leases(job, processes, v0, weights);
    std::vector<long long> counts;
    owners_of(job, leases, processes, v0, &counts);
    double slowest = 0;
    for (size_t i = 0; i < counts.size(); i++) {
        assert_true(counts[i] >= 1);
        slowest = std::max(slowest, static_cast<double>(counts[i]) / weights[i]);
    }
    double best = best_slowest_share(job.files[0].blocks_per_version(), weights);
    if (slowest > best * (1 + 1e-9)) {
        std::string text;
        for (size_t i = 0; i < counts.size(); i++)
            text += std::to_string(counts[i]) + "/" + std::to_string(weights[i]) + " ";
        fail_msg("slowest share %g, best %g: %s", slowest, best, text.c_str());
    }
}

// The 15 laggards at 8x on 16 x 16 blocks: 11 blocks each and 91 for the
// fast process (whole-row cuts gave some laggards 12: 192 ms a version, not 182).
void fifteen_laggards_get_eleven_blocks_each(void **)
{
    std::vector<double> weights(16, 0.125);
    weights[0] = 1;
    Job job = job_of({16, 16}, 10);
    std::vector<long long> counts;
    owners_of(job, period_leases(job, 16, 10, weights), 16, 10, &counts);
    assert_int_equal(counts[0], 91);
    for (int i = 1; i < 16; i++)
        assert_int_equal(counts[static_cast<size_t>(i)], 11);
}

// The paper's mixed cluster (2 at 1x, 10 at 2x, 4 at 4x): shares exactly 2:1:0.5.
void the_mixed_cluster_gets_exact_areas(void **)
{
    std::vector<double> weights = {1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25};
    Job job = job_of({16, 16}, 10, weights); // given in desync_chunks: version 0's layout
    std::vector<long long> counts;
    owners_of(job, period_leases(job, 16, 0, {}), 16, 0, &counts);
    for (int i = 0; i < 16; i++)
        assert_int_equal(counts[static_cast<size_t>(i)], i < 2 ? 32 : i < 12 ? 16 : 8);
}

// Equal weights on q^2 processes of a square file: the q x q squares, one each.
void equal_weights_give_the_squares(void **)
{
    for (int q : {1, 2, 4}) { // 9 does not halve evenly: generated_layouts_hold covers it
        int side = 4 * q;
        Job job = job_of({side, side}, 0);
        std::vector<Lease> leases = period_leases(job, q * q, 0, {});
        assert_int_equal(leases.size(), static_cast<size_t>(q * q));
        for (const Lease &l : leases)
            for (size_t k = 0; k < 2; k++)
                assert_int_equal(l.hi[k] - l.lo[k] + 1, 4);
    }
}

// Generated files and weights: tiling, order, at least one block each, and the
// best slowest share.
void generated_layouts_hold(void **)
{
    std::mt19937 random(20261203);
    for (int trial = 0; trial < 300; trial++) {
        int dims = 1 + static_cast<int>(random() % 3);
        std::vector<int> extent;
        long long blocks = 1;
        for (int k = 0; k < dims; k++) {
            extent.push_back(1 + static_cast<int>(random() % (dims == 1 ? 200 : dims == 2 ? 24 : 8)));
            blocks *= extent.back();
        }
        int processes = 1 + static_cast<int>(random() % std::min<long long>(blocks, 20));
        std::vector<double> weights;
        for (int i = 0; i < processes; i++)
            weights.push_back(random() % 4 == 0 ? 1.0 : 0.05 + static_cast<double>(random() % 1000) / 100.0);
        check_layout(extent, weights, static_cast<int>(random() % 3) * 10);
    }
}

} // namespace

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifteen_laggards_get_eleven_blocks_each),
        cmocka_unit_test(the_mixed_cluster_gets_exact_areas),
        cmocka_unit_test(equal_weights_give_the_squares),
        cmocka_unit_test(generated_layouts_hold),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
