// sched_api.cpp - DLI_Sched_*: the C entry points of the probability scheduler. They
// check the arguments, turn them into a Problem, and keep, for the dynamic form, which
// chunk was handed to which rank so that a wrong completion is refused.
#include <cmath>
#include <memory>
#include <string>

#include "buffers.h"
#include "dli.h"
#include "error.h"
#include "sched_problem.h"
#include "scheduler.h"

using dli::Error;
using dli::guarded;
using namespace dli::sched;

// The dynamic scheduler's state. The master owns it: no locking (see dli.h).
struct DLI_Sched_s {
    Problem problem;
    std::unique_ptr<ProbabilityScheduler> scheduler;  // refers to problem
    std::vector<int> handed_to;                       // per chunk: its rank, -1: not yet
    std::vector<bool> completed;
};

namespace {

void require(bool ok, const std::string &what) {
    if (!ok) throw Error(DLI_ERR_ARG, what);
}

std::vector<double> speeds_of(const double *speeds, int nranks) {
    if (!speeds) return std::vector<double>(static_cast<size_t>(nranks), 1.0);
    std::vector<double> out(speeds, speeds + nranks);
    for (int rank = 0; rank < nranks; ++rank)
        require(std::isfinite(out[static_cast<size_t>(rank)]) && out[static_cast<size_t>(rank)] > 0,
                "speeds[" + std::to_string(rank) + "] must be a positive number, not " +
                    std::to_string(out[static_cast<size_t>(rank)]));
    return out;
}

DLI_Assignment *pack_assignment(const Problem &problem, const std::vector<int> &rank_of_chunk) {
    const Summary summary = summarize(problem, rank_of_chunk);
    return dli::Block::pack<DLI_Assignment>([&](dli::Block &block) {
        auto *out = block.take<DLI_Assignment>(1);
        out->nchunks = static_cast<int>(rank_of_chunk.size());
        out->rank_of_chunk = block.take<int>(rank_of_chunk.size());
        std::copy(rank_of_chunk.begin(), rank_of_chunk.end(), out->rank_of_chunk);
        out->nranks = static_cast<int>(summary.bytes_of_rank.size());
        out->bytes_of_rank = block.take<int64_t>(summary.bytes_of_rank.size());
        std::copy(summary.bytes_of_rank.begin(), summary.bytes_of_rank.end(), out->bytes_of_rank);
        out->local_bytes = summary.local_bytes;
        out->total_bytes = summary.total_bytes;
        return out;
    });
}

void check_rank(const DLI_Sched_s *sched, int rank) {
    require(sched != nullptr, "sched is NULL");
    const int nranks = static_cast<int>(sched->problem.rank_node.size());
    require(rank >= 0 && rank < nranks,
            "rank " + std::to_string(rank) + " is not in [0, " + std::to_string(nranks) + ")");
}

void check_completion(const DLI_Sched_s &sched, int rank, int chunk, double seconds) {
    const std::string what = "chunk " + std::to_string(chunk);
    require(chunk >= 0 && static_cast<size_t>(chunk) < sched.handed_to.size(),
            what + " is not in [0, " + std::to_string(sched.handed_to.size()) + ")");
    const int owner = sched.handed_to[static_cast<size_t>(chunk)];
    require(owner >= 0, what + " was never handed out");
    require(owner == rank, what + " was handed to rank " + std::to_string(owner) + ", not rank " +
                               std::to_string(rank));
    require(!sched.completed[static_cast<size_t>(chunk)], what + " was already completed");
    require(std::isfinite(seconds) && seconds > 0,
            "seconds must be a positive number, not " + std::to_string(seconds));
}

}  // namespace

extern "C" {

int DLI_Sched_static(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts, const double *speeds,
                     uint64_t seed, DLI_Assignment **assignment) {
    return guarded("DLI_Sched_static", [&] {
        const Problem problem = problem_from(chunks, nranks, rank_hosts);
        const std::vector<double> rank_speeds = speeds_of(speeds, nranks);
        require(assignment != nullptr, "assignment is NULL");
        ProbabilityScheduler scheduler(problem, seed, rank_speeds);
        *assignment = pack_assignment(problem, assign_in_request_order(problem, scheduler, rank_speeds));
    });
}

int DLI_Sched_remap(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts, uint64_t seed,
                    DLI_Remap **remap) {
    return guarded("DLI_Sched_remap", [&] {
        const Problem problem = problem_from(chunks, nranks, rank_hosts);
        require(remap != nullptr, "remap is NULL");
        const std::vector<double> equal(static_cast<size_t>(nranks), 1.0);
        ProbabilityScheduler scheduler(problem, seed, equal);
        const std::vector<int> rank_of_chunk = assign_in_request_order(problem, scheduler, equal);
        const Summary summary = summarize(problem, rank_of_chunk);
        const std::vector<int64_t> share_end = rank_offset_share_ends(summary.total_bytes, nranks);
        const std::vector<int> order = shares_layout(problem, rank_of_chunk, share_end);
        std::vector<int> plain(order.size());
        for (size_t c = 0; c < plain.size(); ++c) plain[c] = static_cast<int>(c);
        *remap = dli::Block::pack<DLI_Remap>([&](dli::Block &block) {
            auto *out = block.take<DLI_Remap>(1);
            out->nchunks = static_cast<int>(order.size());
            out->order = block.take<int>(order.size());
            std::copy(order.begin(), order.end(), out->order);
            out->local_bytes = local_bytes_in_shares(problem, order, share_end);
            out->plain_local_bytes = local_bytes_in_shares(problem, plain, share_end);
            out->total_bytes = summary.total_bytes;
            return out;
        });
    });
}

int DLI_Sched_create(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts, uint64_t seed,
                     DLI_Sched *sched) {
    return guarded("DLI_Sched_create", [&] {
        auto state = std::make_unique<DLI_Sched_s>();
        state->problem = problem_from(chunks, nranks, rank_hosts);
        require(sched != nullptr, "sched is NULL");
        state->scheduler = std::make_unique<ProbabilityScheduler>(state->problem, seed);
        state->handed_to.assign(state->problem.chunk_bytes.size(), -1);
        state->completed.assign(state->problem.chunk_bytes.size(), false);
        *sched = state.release();
    });
}

int DLI_Sched_next(DLI_Sched sched, int rank, int *chunk_index) {
    return guarded("DLI_Sched_next", [&] {
        check_rank(sched, rank);
        require(chunk_index != nullptr, "chunk_index is NULL");
        const int chunk = sched->scheduler->next(rank);
        if (chunk >= 0) sched->handed_to[static_cast<size_t>(chunk)] = rank;
        *chunk_index = chunk;
    });
}

int DLI_Sched_complete(DLI_Sched sched, int rank, int chunk_index, double seconds) {
    return guarded("DLI_Sched_complete", [&] {
        check_rank(sched, rank);
        check_completion(*sched, rank, chunk_index, seconds);
        sched->completed[static_cast<size_t>(chunk_index)] = true;
        sched->scheduler->completed(rank, chunk_index, seconds);
    });
}

int DLI_Sched_free(DLI_Sched *sched) {
    return guarded("DLI_Sched_free", [&] {
        require(sched != nullptr, "sched is NULL");
        delete *sched;
        *sched = nullptr;
    });
}

}  // extern "C"
