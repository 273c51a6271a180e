// See windows.h.
#include "windows.h"

#include <cstdint>
#include <cstring>

namespace piox::adio {

constexpr MPI_Aint kSegmentAlignment = 64;

int allocate_node_segment(MPI_Comm comm, MPI_Aint bytes,
                          const std::function<void(void *base)> &initialise, MPI_Win *win,
                          void **base)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    *win = MPI_WIN_NULL;
    void *mine = nullptr;
    int rc = PMPI_Win_allocate_shared(rank == 0 ? bytes + kSegmentAlignment : 0, 1, MPI_INFO_NULL,
                                      comm, &mine, win);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);

    MPI_Aint host_bytes = 0;
    int disp_unit = 0;
    rc = PMPI_Win_shared_query(*win, 0, &host_bytes, &disp_unit, base);
    // Open MPI's segment does not start on a cache line (MPICH's starts on a page),
    // and the segments hold alignas(64) structures the compiler copies with aligned
    // vector instructions. Each process maps the segment at a page boundary, so
    // every process rounds up to the same byte.
    if (rc == MPI_SUCCESS) {
        const auto address = reinterpret_cast<uintptr_t>(*base);
        *base = reinterpret_cast<void *>((address + kSegmentAlignment - 1) /
                                         kSegmentAlignment * kSegmentAlignment);
    }
    if (rc == MPI_SUCCESS && rank == 0)
        initialise(*base);
    // Everyone must see the initialised block before using it. The reduction also
    // makes the creation fail together if the query failed anywhere.
    int ok = rc == MPI_SUCCESS, all_ok = 0;
    int rc2 = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (rc2 != MPI_SUCCESS || !all_ok) {
        PMPI_Win_free(win);
        return rc != MPI_SUCCESS ? rc : (rc2 != MPI_SUCCESS ? rc2 : MPI_ERR_OTHER);
    }
    return MPI_SUCCESS;
}

int allocate_zeroed_window(MPI_Comm comm, MPI_Aint bytes, MPI_Win *win, void **base)
{
    *win = MPI_WIN_NULL;
    int rc = PMPI_Win_allocate(bytes, 1, MPI_INFO_NULL, comm, base, win);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
    std::memset(*base, 0, static_cast<size_t>(bytes));
    rc = PMPI_Barrier(comm);  // nobody reaches into a window before it is zero
    if (rc != MPI_SUCCESS)
        PMPI_Win_free(win);
    return rc;
}

int free_window_and_comm(MPI_Win *win, MPI_Comm *comm)
{
    int rc = PMPI_Win_free(win);
    int rc2 = PMPI_Comm_free(comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

}  // namespace piox::adio
