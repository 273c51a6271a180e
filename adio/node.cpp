// Host identity and node-local communicators: see include/piox_node.h.
#include "piox_node.h"

#include "one_node.h"
#include "piox_comm.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
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

namespace piox::adio {
namespace {

// The attribute that keeps the answer on a communicator: 1 + one_node, so that a
// null value is never an answer. MPI_COMM_DUP_FN copies it to every duplicate,
// which has the same processes. MPI_KEYVAL_INVALID if none could be made: then
// nothing is kept.
int one_node_keyval()
{
    static int keyval = MPI_KEYVAL_INVALID;
    static std::once_flag created;
    std::call_once(created, [] {
        if (PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr) !=
            MPI_SUCCESS)
            keyval = MPI_KEYVAL_INVALID;
    });
    return keyval;
}

bool kept_answer(int keyval, MPI_Comm comm, int *one_node)
{
    void *kept = nullptr;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, keyval, &kept, &found) != MPI_SUCCESS ||
        !found)
        return false;
    *one_node = static_cast<int>(reinterpret_cast<intptr_t>(kept) - 1);
    return true;
}

int ask(MPI_Comm comm, int *one_node)
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

}  // namespace

int comm_on_one_node(MPI_Comm cache_on, MPI_Comm own, int *one_node)
{
    const int keyval = one_node_keyval();
    if (kept_answer(keyval, cache_on, one_node))
        return MPI_SUCCESS;
    MPI_Comm made = MPI_COMM_NULL;
    if (own == MPI_COMM_NULL) {
        int rc = piox_comm_dup_private(cache_on, &made);
        if (rc != MPI_SUCCESS)
            return rc;
        own = made;
    }
    int rc = ask(own, one_node);
    if (made != MPI_COMM_NULL)
        PMPI_Comm_free(&made);
    // Kept only once agreed, on every process alike: a later call finds it
    // everywhere or nowhere, so no process skips a collective the others make.
    if (rc == MPI_SUCCESS && keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_set_attr(cache_on, keyval, reinterpret_cast<void *>(intptr_t(*one_node) + 1));
    return rc;
}

}  // namespace piox::adio

extern "C" int piox_comm_on_one_node(MPI_Comm comm, int *one_node)
{
    return piox::adio::comm_on_one_node(comm, MPI_COMM_NULL, one_node);
}
