// Whether a communicator lies on one node, asked once per communicator: the answer
// of piox_comm_on_one_node (piox_node.h), kept as an attribute of a communicator and
// copied to its duplicates. Each MPI_File_open would otherwise split its
// communicator twice and gather every host name (five collectives) to learn again
// what the last open learned.
#ifndef PIOX_ADIO_ONE_NODE_H
#define PIOX_ADIO_ONE_NODE_H

#include <mpi.h>

namespace piox::adio {

// The answer kept on cache_on, else asked collectively on own (a private duplicate
// of cache_on, whose errors return; MPI_COMM_NULL: one is made for the question)
// and then kept on cache_on.
int comm_on_one_node(MPI_Comm cache_on, MPI_Comm own, int *one_node);

}  // namespace piox::adio

#endif
