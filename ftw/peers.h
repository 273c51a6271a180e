// peers.h - whom an idle rank asks for work, per algorithm.
//
//  drqs     a random peer each time (Algorithm 2).
//  pa-drqs  the request vector of Algorithm 3 in the paper's final form: a node's
//           local root asks the other nodes' ranks first, then its own node's; every
//           other rank asks only the ranks of its own node. Ranks are asked in order
//           of global rank, from the top again after a request that brought work.
//  h-drqs   one rank per node with threads (Algorithm 4): a local root asks a random
//           rank of another node; other ranks of a node, if any, behave as in pa-drqs.
// Nodes are found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), standing in for
// the paper's network numbers, or by PIOX_HOSTNAME where set (one machine presented
// as several nodes).
#ifndef PFTW_PEERS_H
#define PFTW_PEERS_H

#include "options.h"

#include <mpi.h>

#include <random>
#include <vector>

namespace pftw {

struct NodeLayout {
    std::vector<int> local;   // ranks of comm on this rank's node, this one included, in order
    std::vector<int> remote;  // all the others, in order
    int local_rank = 0;
    bool ok = false;
};

// Collective over comm.
NodeLayout find_node_layout(MPI_Comm comm);

class PeerOrder {
public:
    PeerOrder(Algorithm algorithm, const NodeLayout &layout, int rank, int size, uint64_t seed);
    int next();
    void fruitful() { position_ = 0; }

private:
    bool random_ = false;
    std::vector<int> order_;  // the request vector, or the candidates for a random pick
    size_t position_ = 0;
    std::mt19937_64 random_source_;
};

}  // namespace pftw
#endif
