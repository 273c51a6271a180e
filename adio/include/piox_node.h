/*
 * piox_node.h - host identity and node-local communicators (C ABI).
 *
 * A host is named as MPI_Get_processor_name names it, or by the PIOX_HOSTNAME
 * environment variable, which lets tests and containers present one machine
 * as several nodes. Two processes are on the same node when they share memory
 * (MPI_COMM_TYPE_SHARED) and carry the same host name.
 */
#ifndef PIOX_NODE_H
#define PIOX_NODE_H

#include <mpi.h>

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes this process's host name (NUL-terminated, at most MPI_MAX_PROCESSOR_NAME
 * bytes including the NUL) into name. */
PIOX_API int piox_host_name(char name[MPI_MAX_PROCESSOR_NAME]);

/* Collective over comm. *node_comm holds the processes of comm on this process's
 * node, ordered as in comm. Free it with MPI_Comm_free. */
PIOX_API int piox_node_comm(MPI_Comm comm, MPI_Comm *node_comm);

/* Collective over comm. *one_node is 1 on every process when all of comm lies on
 * one node (as piox_node_comm groups them), else 0 on every process. The answer is
 * kept on comm as an attribute that MPI_Comm_dup copies: later calls on comm or on a
 * duplicate of it make no collective. */
PIOX_API int piox_comm_on_one_node(MPI_Comm comm, int *one_node);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_NODE_H */
