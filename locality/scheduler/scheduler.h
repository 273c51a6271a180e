// scheduler.h - the probability scheduler of DL-MPI (Algorithm 1) and the baselines it is
// measured against. The C API (DLI_Sched_*) is a thin layer over this (sched_api.cpp).
// See the design comment in probability.cpp for the choices where the paper is unclear.
#pragma once
#include <cstdint>
#include <vector>

namespace dli::sched {

// The problem in numbers: which nodes hold each chunk, and which node each rank runs on.
struct Problem {
    std::vector<int64_t> chunk_bytes;               // per chunk
    std::vector<std::vector<int>> chunk_nodes;      // per chunk: nodes holding a replica
    int nnodes = 0;
    std::vector<int> rank_node;                     // per rank: its node
};

}  // namespace dli::sched
