// sched_problem.h - a C caller's chunk list and rank hosts in the scheduler's numbers:
// nodes are the distinct rank hosts, and a chunk's holders the nodes its hosts name.
#pragma once
#include "dli.h"
#include "scheduler.h"

namespace dli::sched {

// Throws Error(DLI_ERR_ARG), naming the argument and the index, for a NULL list, a
// negative count or length, NULL hosts, nranks <= 0, or a NULL or empty rank host.
// Hosts match with dli::same_host; a rank's node is the first earlier rank host that
// matches its own. Chunk hosts that match no rank host hold nothing for the scheduler.
Problem problem_from(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts);

}  // namespace dli::sched
