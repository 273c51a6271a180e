// The whole-file mutex of Latham, Ross and Thakur (2007), figures 3 and 4: a byte
// per process (waitflag) in a window on rank 0. To lock, a process sets its byte and
// reads all the others in one exclusive epoch; if any other byte is set it waits for
// a zero-byte message. To unlock, it clears its byte and reads the others in one
// epoch, then wakes the next waiting rank after its own (round robin: no
// starvation). Kept as written, as the baseline for the range lock (hint
// piox_atomic_lock=mutex): every request is exclusive and covers the whole file, and
// the epochs need rank 0 to make MPI progress.
#include "lock_service.h"
#include "round_trips.h"
#include "windows.h"

#include <vector>

namespace piox::adio {
namespace {

constexpr int kWakeupTag = 1;

class WaitflagMutex final : public LockService {
public:
    WaitflagMutex(MPI_Comm comm, MPI_Win win, MPI_Datatype others, int rank, int size)
        : comm_(comm), win_(win), others_(others), rank_(rank), size_(size),
          copy_(static_cast<size_t>(size > 1 ? size - 1 : 1)), sync_(rank)
    {
    }

    int acquire(piox_lock_mode, const ExtentList &) override
    {
        int rc = set_flag_and_read_others(1);
        if (rc != MPI_SUCCESS || !anyone_else_flagged())
            return rc;
        return PMPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, kWakeupTag, comm_,
                         MPI_STATUS_IGNORE);
    }

    int release() override
    {
        int rc = set_flag_and_read_others(0);
        if (rc != MPI_SUCCESS || !anyone_else_flagged())
            return rc;
        return PMPI_Send(nullptr, 0, MPI_BYTE, next_waiting_rank(), kWakeupTag, comm_);
    }

    int destroy() override
    {
        if (others_ != MPI_DATATYPE_NULL)
            PMPI_Type_free(&others_);
        return free_window_and_comm(&win_, &comm_);
    }

    const char *name() const override { return "mutex"; }
    uint64_t round_trips() const override { return sync_.count(); }

private:
    // One exclusive epoch: put our flag, get everybody else's (copy_ holds the
    // other ranks' bytes in rank order, our own left out).
    int set_flag_and_read_others(unsigned char value)
    {
        flag_ = value;
        int rc = sync_.lock(MPI_LOCK_EXCLUSIVE, 0, win_);
        if (rc != MPI_SUCCESS)
            return rc;
        if (size_ > 1)
            rc = PMPI_Get(copy_.data(), size_ - 1, MPI_BYTE, 0, 0, 1, others_, win_);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Put(&flag_, 1, MPI_BYTE, 0, rank_, 1, MPI_BYTE, win_);
        int rc2 = sync_.unlock(0, win_);
        return rc != MPI_SUCCESS ? rc : rc2;
    }

    bool anyone_else_flagged() const
    {
        for (int i = 0; i < size_ - 1; i++)
            if (copy_[static_cast<size_t>(i)] != 0)
                return true;
        return false;
    }

    // The first flagged rank after ours, wrapping around.
    int next_waiting_rank() const
    {
        for (int step = 1; step < size_; step++) {
            int rank = (rank_ + step) % size_;
            int index = rank < rank_ ? rank : rank - 1;  // copy_ skips our own byte
            if (copy_[static_cast<size_t>(index)] != 0)
                return rank;
        }
        return rank_;  // not reached: called only when someone is flagged
    }

    MPI_Comm comm_;
    MPI_Win win_;
    MPI_Datatype others_;  // every byte of the flag array but ours
    int rank_;
    int size_;
    std::vector<unsigned char> copy_;
    unsigned char flag_ = 0;
    RoundTrips sync_;
};

}  // namespace

int make_waitflag_mutex(MPI_Comm comm, std::unique_ptr<LockService> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    MPI_Datatype others = MPI_DATATYPE_NULL;
    int rc = MPI_SUCCESS;
    if (size > 1) {
        // Two blocks around our own byte; a zero-length block is allowed.
        int lengths[2] = {rank, size - rank - 1};
        int displacements[2] = {0, rank + 1};
        rc = PMPI_Type_indexed(2, lengths, displacements, MPI_BYTE, &others);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&others);
    }
    MPI_Win win = MPI_WIN_NULL;
    void *flags = nullptr;
    if (rc == MPI_SUCCESS)  // the flags, on rank 0, all 0: nobody waits
        rc = allocate_zeroed_window(comm, rank == 0 ? size : 0, &win, &flags);
    if (rc != MPI_SUCCESS) {
        if (others != MPI_DATATYPE_NULL)
            PMPI_Type_free(&others);
        return rc;
    }
    out->reset(new WaitflagMutex(comm, win, others, rank, size));
    return MPI_SUCCESS;
}

}  // namespace piox::adio
