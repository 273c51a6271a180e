// peers.cpp - node layout and request order.
#include "peers.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace pftw {

namespace {

// Splits comm by PIOX_HOSTNAME when any rank has it set, else by shared memory.
MPI_Comm split_by_node(MPI_Comm comm, int rank)
{
    const char *name = std::getenv("PIOX_HOSTNAME");
    int named = name && *name, any_named = 0;
    MPI_Allreduce(&named, &any_named, 1, MPI_INT, MPI_MAX, comm);
    MPI_Comm node = MPI_COMM_NULL;
    if (!any_named) {
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        return node;
    }
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    if (named) {
        std::strncpy(mine, name, sizeof mine - 1);
    } else {
        int length = 0;
        MPI_Get_processor_name(mine, &length);
    }
    int size = 0;
    MPI_Comm_size(comm, &size);
    std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    int color = 0;  // the first rank with the same name
    while (std::strncmp(&all[static_cast<size_t>(color) * MPI_MAX_PROCESSOR_NAME], mine, MPI_MAX_PROCESSOR_NAME))
        color++;
    MPI_Comm_split(comm, color, rank, &node);
    return node;
}

}  // namespace

NodeLayout find_node_layout(MPI_Comm comm)
{
    NodeLayout layout;
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node = split_by_node(comm, rank);
    if (node == MPI_COMM_NULL)
        return layout;
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_rank(node, &layout.local_rank);
    MPI_Group node_group, group;
    MPI_Comm_group(node, &node_group);
    MPI_Comm_group(comm, &group);
    std::vector<int> node_ranks(node_size);
    layout.local.resize(node_size);
    for (int i = 0; i < node_size; i++)
        node_ranks[i] = i;
    MPI_Group_translate_ranks(node_group, node_size, node_ranks.data(), group, layout.local.data());
    MPI_Group_free(&node_group);
    MPI_Group_free(&group);
    MPI_Comm_free(&node);
    std::sort(layout.local.begin(), layout.local.end());
    for (int r = 0; r < size; r++)
        if (!std::binary_search(layout.local.begin(), layout.local.end(), r))
            layout.remote.push_back(r);
    layout.ok = true;
    return layout;
}

PeerOrder::PeerOrder(Algorithm algorithm, const NodeLayout &layout, int rank, int size, uint64_t seed)
    : random_source_(seed)
{
    std::vector<int> local_others;
    for (int r : layout.local)
        if (r != rank)
            local_others.push_back(r);
    const bool local_root = layout.local_rank == 0;
    switch (algorithm) {
    case Algorithm::drqs:
        random_ = true;
        for (int r = 0; r < size; r++)
            if (r != rank)
                order_.push_back(r);
        break;
    case Algorithm::pa_drqs:
        if (local_root)
            order_ = layout.remote;
        order_.insert(order_.end(), local_others.begin(), local_others.end());
        break;
    case Algorithm::h_drqs:
        if (local_root) {
            random_ = true;
            order_ = layout.remote.empty() ? local_others : layout.remote;
        } else {
            order_ = local_others;
        }
        break;
    }
}

int PeerOrder::next()
{
    if (order_.empty())
        return -1;
    if (random_)
        return order_[std::uniform_int_distribution<size_t>(0, order_.size() - 1)(random_source_)];
    int peer = order_[position_];
    position_ = (position_ + 1) % order_.size();
    return peer;
}

}  // namespace pftw
