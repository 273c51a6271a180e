// Shared file pointer hosted on rank 0 and updated with MPI-3 atomics, for
// communicators that span nodes. One passive-target epoch (lock_all) stays open for
// the life of the pointer; a shared-mode access is one MPI_Fetch_and_op plus a flush.
//
// Progress: MPI_Fetch_and_op completes without the host's help only where the MPI
// library and network do remote atomics in hardware or run an asynchronous progress
// thread (MPICH: MPIR_CVAR_ASYNC_PROGRESS=1). Otherwise it completes when the host
// next enters MPI. The README says so.
#include "piox_log.h"
#include "sfp_transport.h"
#include "windows.h"

#include <cstdint>

namespace piox::adio {
namespace {

constexpr int kHost = 0;

class RmaTransport final : public SfpTransport {
public:
    RmaTransport(MPI_Comm comm, MPI_Win win, int rank, int size)
        : comm_(comm), win_(win), rank_(rank), size_(size)
    {
    }

    int fetch_add(MPI_Offset delta, MPI_Offset *previous) override
    {
        return atomic(MPI_SUM, delta, previous);
    }

    int read(MPI_Offset *current) override { return atomic(MPI_NO_OP, 0, current); }

    int store(MPI_Offset value) override
    {
        MPI_Offset previous;
        return atomic(MPI_REPLACE, value, &previous);
    }

    // The paper's ordered mode (fig. 7) with MPI-3 atomics: one exclusive scan of the
    // sizes, one fetch-and-add of the total by the last rank, and a broadcast of the
    // old value from it, so that nobody returns before the pointer is updated.
    int ordered(MPI_Offset delta, MPI_Offset *offset) override
    {
        int64_t mine = delta, before = 0;
        int rc = PMPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm_);
        if (rank_ == 0)
            before = 0;  // MPI_Exscan leaves rank 0's result undefined
        int64_t base = 0;
        if (rc == MPI_SUCCESS && rank_ == size_ - 1) {
            MPI_Offset old = 0;
            rc = atomic(MPI_SUM, before + mine, &old);
            base = old;
        }
        int64_t shared[2] = {base, rc};
        int rc2 = PMPI_Bcast(shared, 2, MPI_INT64_T, size_ - 1, comm_);
        if (rc2 != MPI_SUCCESS)
            return rc2;
        if (rc == MPI_SUCCESS && shared[1] != MPI_SUCCESS)
            rc = static_cast<int>(shared[1]);
        *offset = shared[0] + before;
        return rc;
    }

    int update(piox_sfp_op op, MPI_Offset operand, MPI_Offset *result) override
    {
        // The reduction doubles as the entry barrier: every earlier fetch-and-add of
        // every process has been flushed before the host applies the update.
        int64_t bounds[2] = {operand, -static_cast<int64_t>(operand)}, all[2] = {0, 0};
        int rc = PMPI_Allreduce(bounds, all, 2, MPI_INT64_T, MPI_MAX, comm_);
        if (rc != MPI_SUCCESS)
            return rc;
        const bool agree = all[0] == -all[1];
        int64_t outcome[2] = {0, MPI_SUCCESS};  // new value, error code
        if (rank_ == kHost) {
            MPI_Offset current = 0;
            rc = atomic(MPI_NO_OP, 0, &current);
            MPI_Offset next = apply_update(op, current, operand, agree);
            if (rc != MPI_SUCCESS) {
                outcome[1] = rc;
            } else if (next < 0) {
                outcome[0] = current;
                outcome[1] = MPI_ERR_ARG;
            } else {
                MPI_Offset ignored = 0;
                outcome[0] = next;
                outcome[1] = atomic(MPI_REPLACE, next, &ignored);
            }
        }
        // Exit barrier and result in one step.
        rc = PMPI_Bcast(outcome, 2, MPI_INT64_T, kHost, comm_);
        if (rc != MPI_SUCCESS)
            return rc;
        if (result != nullptr)
            *result = outcome[0];
        return static_cast<int>(outcome[1]);
    }

    int release() override
    {
        int rc = PMPI_Win_unlock_all(win_);
        int rc2 = free_window_and_comm(&win_, &comm_);
        return rc != MPI_SUCCESS ? rc : rc2;
    }

    const char *name() const override { return "rma"; }

private:
    int atomic(MPI_Op op, MPI_Offset operand, MPI_Offset *fetched)
    {
        int64_t origin = operand, result = 0;
        int rc = PMPI_Fetch_and_op(&origin, &result, MPI_INT64_T, kHost, 0, op, win_);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(kHost, win_);
        *fetched = result;
        return rc;
    }

    MPI_Comm comm_;
    MPI_Win win_;
    int rank_;
    int size_;
};

}  // namespace

int make_rma_transport(MPI_Comm comm, MPI_Offset initial, std::unique_ptr<SfpTransport> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    MPI_Info info;
    PMPI_Info_create(&info);
    // Only fetch-and-add, reads and (collective) replaces touch the counter.
    PMPI_Info_set(info, "accumulate_ordering", "none");
    PMPI_Info_set(info, "same_disp_unit", "true");
    void *base = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    int rc = PMPI_Win_allocate(rank == kHost ? static_cast<MPI_Aint>(sizeof(int64_t)) : 0,
                               sizeof(int64_t), info, comm, &base, &win);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == kHost)
        *static_cast<int64_t *>(base) = initial;
    // The initial value must be in place before anyone's first atomic.
    rc = PMPI_Barrier(comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    if (rc != MPI_SUCCESS) {
        PMPI_Win_free(&win);
        return rc;
    }
    out->reset(new RmaTransport(comm, win, rank, size));
    return MPI_SUCCESS;
}

}  // namespace piox::adio
