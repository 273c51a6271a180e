// sched_problem.cpp - from the C caller's chunk list and rank hosts to node numbers.
#include "sched_problem.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "error.h"
#include "hosts.h"

namespace dli::sched {

namespace {

void require(bool ok, const std::string &what) {
    if (!ok) throw Error(DLI_ERR_ARG, what);
}

void check_chunk(const DLI_Chunk &chunk, int i) {
    const std::string name = "chunks->chunks[" + std::to_string(i) + "]";
    require(chunk.length >= 0, name + " has a negative length (" + std::to_string(chunk.length) + ")");
    require(chunk.nhosts >= 0, name + " has a negative host count (" + std::to_string(chunk.nhosts) + ")");
    require(chunk.nhosts == 0 || chunk.hosts != nullptr, name + ".hosts is NULL");
    for (int h = 0; h < chunk.nhosts; ++h)
        require(chunk.hosts[h] != nullptr, name + ".hosts[" + std::to_string(h) + "] is NULL");
}

// The nodes that a host name (as a chunk lists it) matches. Chunks repeat few names,
// so each distinct one is compared with every node once.
class NodeFinder {
public:
    explicit NodeFinder(std::vector<std::string> node_names) : names_(std::move(node_names)) {}
    const std::vector<int> &nodes_of(const std::string &host) {
        auto found = cache_.find(host);
        if (found != cache_.end()) return found->second;
        std::vector<int> &nodes = cache_[host];
        for (size_t n = 0; n < names_.size(); ++n)
            if (same_host(host, names_[n])) nodes.push_back(static_cast<int>(n));
        return nodes;
    }

private:
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::vector<int>> cache_;
};

}  // namespace

Problem problem_from(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts) {
    require(chunks != nullptr, "chunks is NULL");
    require(chunks->count >= 0, "chunks->count is negative (" + std::to_string(chunks->count) + ")");
    require(chunks->count == 0 || chunks->chunks != nullptr, "chunks->chunks is NULL");
    require(nranks > 0, "nranks must be positive, not " + std::to_string(nranks));
    require(rank_hosts != nullptr, "rank_hosts is NULL");

    Problem problem;
    std::vector<std::string> node_names;
    for (int rank = 0; rank < nranks; ++rank) {
        const char *host = rank_hosts[rank];
        require(host != nullptr && *host != '\0', "rank_hosts[" + std::to_string(rank) + "] is NULL or empty");
        auto same = std::find_if(node_names.begin(), node_names.end(),
                                 [&](const std::string &node) { return same_host(host, node); });
        if (same == node_names.end()) same = node_names.insert(node_names.end(), host);
        problem.rank_node.push_back(static_cast<int>(same - node_names.begin()));
    }
    problem.nnodes = static_cast<int>(node_names.size());

    NodeFinder finder(std::move(node_names));
    for (int i = 0; i < chunks->count; ++i) {
        const DLI_Chunk &chunk = chunks->chunks[i];
        check_chunk(chunk, i);
        std::vector<int> holders;
        for (int h = 0; h < chunk.nhosts; ++h)
            for (int node : finder.nodes_of(chunk.hosts[h]))
                if (std::find(holders.begin(), holders.end(), node) == holders.end()) holders.push_back(node);
        problem.chunk_bytes.push_back(chunk.length);
        problem.chunk_nodes.push_back(std::move(holders));
    }
    return problem;
}

}  // namespace dli::sched
