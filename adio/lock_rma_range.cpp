// The byte-range reader/writer lock across nodes, in MPI windows: the protocol of
// range_shards.h, with each shard's table homed on rank shard % size (so the lock
// state, and the traffic, are spread over the processes instead of one host rank).
//
//   the shard's mutex  an exclusive MPI_Win_lock epoch on the shard's home rank;
//   enter/release      within it, MPI_Get the table, decide (range_shards.cpp), MPI_Put
//                      back what changed;
//   waiting            MPI_Recv of a zero-byte grant message (tag: the shard), sent by
//                      the releaser that granted the request, as in the paper: a
//                      waiter never polls remote memory.
// Cost: an uncontended acquire plus release of one shard is two epochs, each a
// get-then-put, so four network round trips where a one-sided lock is one; and, as
// for every passive-target epoch under Debian's MPICH (active messages), the home
// rank must enter MPI for an epoch to progress (README: what the network must offer).
#include "lock_service.h"
#include "range_shards.h"
#include "round_trips.h"
#include "windows.h"

#include <cstring>
#include <vector>

namespace piox::adio {
namespace {

constexpr int kGrantTag = 100;  // + shard

struct TableHeader {
    uint64_t next_ticket;
    uint64_t reserved;
};

MPI_Aint table_bytes(int processes)
{
    return static_cast<MPI_Aint>(sizeof(TableHeader) + sizeof(Slot) * static_cast<size_t>(processes));
}

class RmaRangeLock final : public ShardedRangeLock {
public:
    RmaRangeLock(MPI_Comm comm, MPI_Win win, int rank, int size)
        : ShardedRangeLock(shard_count(size)), comm_(comm), win_(win), rank_(rank), size_(size),
          table_(static_cast<size_t>(table_bytes(size))), sync_(rank)
    {
    }

    int destroy() override
    {
        return free_window_and_comm(&win_, &comm_);
    }

    const char *name() const override { return "range"; }
    uint64_t round_trips() const override { return sync_.count(); }

    // Where shard s lives: its home rank and its displacement in that rank's memory.
    static int home_of(int shard, int size) { return shard % size; }
    static MPI_Aint displacement_of(int shard, int size)
    {
        return static_cast<MPI_Aint>(shard / size) * table_bytes(size);
    }

private:
    TableHeader *header() { return reinterpret_cast<TableHeader *>(table_.data()); }
    Slot *slots() { return reinterpret_cast<Slot *>(table_.data() + sizeof(TableHeader)); }

    // Opens the shard's epoch and fetches its table into table_.
    int open_table(int shard)
    {
        const int home = home_of(shard, size_);
        int rc = sync_.lock(MPI_LOCK_EXCLUSIVE, home, win_);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = PMPI_Get(table_.data(), static_cast<int>(table_.size()), MPI_BYTE, home,
                      displacement_of(shard, size_), static_cast<int>(table_.size()), MPI_BYTE,
                      win_);
        if (rc == MPI_SUCCESS)
            rc = sync_.flush(home, win_);
        if (rc != MPI_SUCCESS)
            sync_.unlock(home, win_);
        return rc;
    }

    // Puts bytes [from, from + length) of table_ back and closes the epoch.
    int close_table(int shard, size_t from, size_t length)
    {
        const int home = home_of(shard, size_);
        int rc = PMPI_Put(table_.data() + from, static_cast<int>(length), MPI_BYTE, home,
                          displacement_of(shard, size_) + static_cast<MPI_Aint>(from),
                          static_cast<int>(length), MPI_BYTE, win_);
        int rc2 = sync_.unlock(home, win_);
        return rc != MPI_SUCCESS ? rc : rc2;
    }

    int enter(int shard, piox_lock_mode mode, const ExtentList &pieces) override
    {
        int rc = open_table(shard);
        if (rc != MPI_SUCCESS)
            return rc;
        Slot &mine = slots()[rank_];
        mine.mode = mode;
        mine.ticket = header()->next_ticket++;
        mine.count = static_cast<uint32_t>(pieces.size());
        std::memcpy(mine.extents, pieces.data(), pieces.size() * sizeof(piox_extent));
        const bool blocked = blocked_on_entry(slots(), size_, rank_);
        mine.state.store(blocked ? kWaiting : kGranted, std::memory_order_relaxed);
        // The header and every slot up to ours: one put, and the others' slots are
        // rewritten with what we just read (nobody else can change them meanwhile).
        rc = close_table(shard, 0, sizeof(TableHeader) + sizeof(Slot) * static_cast<size_t>(rank_ + 1));
        if (rc != MPI_SUCCESS || !blocked)
            return rc;
        return PMPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, kGrantTag + shard, comm_,
                         MPI_STATUS_IGNORE);
    }

    int leave(int shard) override
    {
        int rc = open_table(shard);
        if (rc != MPI_SUCCESS)
            return rc;
        slots()[rank_].state.store(kFree, std::memory_order_relaxed);
        grantable(slots(), size_, &granted_);
        for (int w : granted_)
            slots()[w].state.store(kGranted, std::memory_order_relaxed);
        rc = close_table(shard, sizeof(TableHeader), sizeof(Slot) * static_cast<size_t>(size_));
        for (int w : granted_) {
            int rc2 = PMPI_Send(nullptr, 0, MPI_BYTE, w, kGrantTag + shard, comm_);
            rc = rc != MPI_SUCCESS ? rc : rc2;
        }
        return rc;
    }

    MPI_Comm comm_;
    MPI_Win win_;
    int rank_;
    int size_;
    std::vector<char> table_;  // the table of the shard being worked on
    std::vector<int> granted_;
    RoundTrips sync_;
};

}  // namespace

int make_rma_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const int shards = shard_count(size);
    const int mine = shards / size + (rank < shards % size ? 1 : 0);
    void *memory = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    // Zero: every ticket counter 0, every slot free.
    int rc = allocate_zeroed_window(comm, mine * table_bytes(size), &win, &memory);
    if (rc != MPI_SUCCESS)
        return rc;
    out->reset(new RmaRangeLock(comm, win, rank, size));
    return MPI_SUCCESS;
}

}  // namespace piox::adio
