// The byte-range reader/writer lock for processes of one node, in shared memory.
//
// Design. The file's bytes are cut into regions of kRegionBytes; region r belongs to
// shard r % nshards. Each shard is a small table in the node-shared segment: a mutex,
// a ticket counter and one slot per process (state, mode, ticket, that process's
// extents inside the shard). A request is split by shard and entered shard by shard,
// in increasing shard order:
//   enter:   under the shard mutex take the next ticket, publish the slot, and look
//            for a conflicting slot (overlapping extents, one of them a writer) that
//            is granted or waiting. None: granted at once. Otherwise wait, asleep on
//            the slot's state word, until a releaser grants it (how long it spins or
//            yields first depends on how busy the node is: wait.h).
//   release: under the mutex free the slot, then grant every waiting slot (in ticket
//            order) that no earlier slot, granted or waiting, conflicts with; after
//            the mutex, wake exactly the granted slots' sleepers (handoff).
// Why this shape:
//   - Exact extents, not whole regions, are compared, so disjoint accesses never wait
//     for each other however finely they interleave (regions only spread the
//     bookkeeping, they are not the locking unit).
//   - A request waits only for earlier tickets of the same shard: FIFO per shard, so
//     a writer behind a stream of readers gets in (no starvation), and readers share.
//   - Shards are entered in increasing order and a process waits in at most one shard
//     (its highest so far), so every wait-for edge goes to a higher shard or to an
//     earlier ticket of the same shard: no cycle, no deadlock (test/model checks this
//     protocol with spin).
//   - Sharding keeps one mutex from serialising unrelated regions, and bounds what a
//     slot must hold: a process's extents within one shard, coarsened past
//     kSlotExtents (coarsening only adds bytes, so exclusion still holds).
//   - Everything is CPU atomics and futexes on the segment: no MPI call, so no
//     process ever waits for another to enter MPI (Debian's MPICH runs RMA as active
//     messages that need the target inside MPI).
// Cost: an uncontended acquire plus release is one mutex round per shard touched; a
// contiguous access of less than kRegionBytes touches at most two shards.
#include "lock_service.h"
#include "range_shards.h"
#include "windows.h"
#include "wait.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

namespace piox::adio {
namespace {

// At the segment's start, before the shards.
struct alignas(64) SegmentHeader {
    std::atomic<uint32_t> asleep{0};  // processes asleep in any of the lock's futexes (wait.h)
};

struct alignas(64) ShardHeader {
    ShmMutex mutex;
    uint64_t next_ticket;
};

size_t shard_bytes(int processes)
{
    size_t bytes = sizeof(ShardHeader) + sizeof(Slot) * static_cast<size_t>(processes);
    return (bytes + 63) / 64 * 64;
}

class ShmRangeLock final : public ShardedRangeLock {
public:
    ShmRangeLock(MPI_Comm comm, MPI_Win win, char *segment, int rank, int size)
        : ShardedRangeLock(shard_count(size)), comm_(comm), win_(win), segment_(segment),
          rank_(rank), size_(size),
          shard_bytes_(shard_bytes(size)),
          policy_(WaitPolicy::for_lock(size, &reinterpret_cast<SegmentHeader *>(segment)->asleep))
    {
    }

    int destroy() override
    {
        return free_window_and_comm(&win_, &comm_);
    }

    const char *name() const override { return "range"; }

    static void initialise(void *segment, int size)
    {
        new (segment) SegmentHeader();
        const int shards = shard_count(size);
        for (int s = 0; s < shards; s++) {
            char *base = shard_base(static_cast<char *>(segment), shard_bytes(size), s);
            new (base) ShardHeader();
            auto *slots = reinterpret_cast<Slot *>(base + sizeof(ShardHeader));
            for (int p = 0; p < size; p++) {
                new (&slots[p]) Slot();
                slots[p].state.store(kFree, std::memory_order_relaxed);
            }
        }
    }

    static size_t segment_bytes(int size)
    {
        return sizeof(SegmentHeader) + shard_bytes(size) * shard_count(size);
    }

private:
    // Where shard `shard` starts: after the segment's header, `stride` bytes apart.
    static char *shard_base(char *segment, size_t stride, int shard)
    {
        return segment + sizeof(SegmentHeader) + static_cast<size_t>(shard) * stride;
    }
    ShardHeader &header(int shard) const
    {
        return *reinterpret_cast<ShardHeader *>(shard_base(segment_, shard_bytes_, shard));
    }
    Slot *slots(int shard) const
    {
        return reinterpret_cast<Slot *>(reinterpret_cast<char *>(&header(shard)) +
                                        sizeof(ShardHeader));
    }

    int enter(int shard, piox_lock_mode mode, const ExtentList &pieces) override
    {
        ShardHeader &head = header(shard);
        Slot *table = slots(shard);
        Slot &mine = table[rank_];
        head.mutex.lock(policy_);
        mine.mode = mode;
        mine.ticket = head.next_ticket++;
        mine.count = static_cast<uint32_t>(pieces.size());
        std::memcpy(mine.extents, pieces.data(), pieces.size() * sizeof(piox_extent));
        const bool blocked = blocked_on_entry(table, size_, rank_);
        mine.state.store(blocked ? kWaiting : kGranted, std::memory_order_release);
        head.mutex.unlock();
        if (blocked)
            wait_for_grant(mine);
        return MPI_SUCCESS;
    }

    void wait_for_grant(Slot &mine)
    {
        auto granted = [&] { return mine.state.load(std::memory_order_acquire) == kGranted; };
        if (policy_.wait_actively(granted))
            return;
        while (!granted()) {
            uint32_t expected = kWaiting;
            if (mine.state.compare_exchange_strong(expected, kSleeping, std::memory_order_acq_rel) ||
                expected == kSleeping)
                policy_.sleep(&mine.state, kSleeping);
        }
    }

    int leave(int shard) override
    {
        ShardHeader &head = header(shard);
        Slot *table = slots(shard);
        head.mutex.lock(policy_);
        table[rank_].state.store(kFree, std::memory_order_relaxed);
        grantable(table, size_, &granted_);
        sleepers_.clear();
        for (int w : granted_)
            if (table[w].state.exchange(kGranted, std::memory_order_acq_rel) == kSleeping)
                sleepers_.push_back(w);
        head.mutex.unlock();
        // Woken after the mutex is let go, so that a woken process never finds it
        // held by its waker. A wake that arrives late (the slot already granted,
        // freed and waiting again) is only a spurious one: the waiter checks its
        // state again and sleeps on.
        for (int w : sleepers_)
            futex_wake_one(&table[w].state);
        return MPI_SUCCESS;
    }

    MPI_Comm comm_;
    MPI_Win win_;
    char *segment_;
    int rank_;
    int size_;
    size_t shard_bytes_;
    WaitPolicy policy_;
    std::vector<int> granted_;   // scratch for leave(): the slots it grants
    std::vector<int> sleepers_;  // and those of them asleep
};

}  // namespace

int make_shm_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    MPI_Win win = MPI_WIN_NULL;
    void *segment = nullptr;
    int rc = allocate_node_segment(
        comm, static_cast<MPI_Aint>(ShmRangeLock::segment_bytes(size)),
        [size](void *base) { ShmRangeLock::initialise(base, size); }, &win, &segment);
    if (rc != MPI_SUCCESS)
        return rc;
    out->reset(new ShmRangeLock(comm, win, static_cast<char *>(segment), rank, size));
    return MPI_SUCCESS;
}

}  // namespace piox::adio
