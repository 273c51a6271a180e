// Host identity and node-local communicators: see include/piox_node.h.
#include "piox_node.h"

#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int piox_host_name(char name[MPI_MAX_PROCESSOR_NAME])
{
    const char *forced = std::getenv("PIOX_HOSTNAME");
    if (forced != nullptr && forced[0] != '\0') {
        std::strncpy(name, forced, MPI_MAX_PROCESSOR_NAME - 1);
        name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
        return MPI_SUCCESS;
    }
    int len = 0;
    int rc = PMPI_Get_processor_name(name, &len);
    if (rc == MPI_SUCCESS)
        name[len < MPI_MAX_PROCESSOR_NAME ? len : MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    return rc;
}

extern "C" int piox_node_comm(MPI_Comm comm, MPI_Comm *node_comm)
{
    MPI_Comm shared;
    int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    if (rc != MPI_SUCCESS)
        return rc;

    // Within real shared memory, group by host name too, so that PIOX_HOSTNAME can
    // split one machine into several "nodes". Names are compared exactly, not hashed.
    char mine[MPI_MAX_PROCESSOR_NAME] = {};
    rc = piox_host_name(mine);
    int size = 0, rank = 0;
    PMPI_Comm_size(shared, &size);
    PMPI_Comm_rank(shared, &rank);
    std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                            MPI_MAX_PROCESSOR_NAME, MPI_CHAR, shared);
    int color = rank;
    for (int i = 0; rc == MPI_SUCCESS && i < size; i++) {
        if (std::strncmp(&all[static_cast<size_t>(i) * MPI_MAX_PROCESSOR_NAME], mine,
                         MPI_MAX_PROCESSOR_NAME) == 0) {
            color = i;
            break;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(shared, color, rank, node_comm);
    PMPI_Comm_free(&shared);
    return rc;
}

extern "C" int piox_comm_on_one_node(MPI_Comm comm, int *one_node)
{
    MPI_Comm node = MPI_COMM_NULL;
    int rc = piox_node_comm(comm, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    int node_size = 0, comm_size = 0;
    PMPI_Comm_size(node, &node_size);
    PMPI_Comm_size(comm, &comm_size);
    PMPI_Comm_free(&node);
    int mine = node_size == comm_size;
    return PMPI_Allreduce(&mine, one_node, 1, MPI_INT, MPI_LAND, comm);
}
