// The protocol shared by both byte-range lock implementations (lock_shm_range.cpp in
// node-shared memory, lock_rma_range.cpp in MPI windows): how requests are cut into
// shards, what a shard's table holds, and the two decisions made under a shard's
// mutex. lock_shm_range.cpp's header comment explains the design and its reasons;
// test/model/range_lock.pml checks it with spin.
#ifndef PIOX_ADIO_RANGE_SHARDS_H
#define PIOX_ADIO_RANGE_SHARDS_H

#include "extent_list.h"
#include "lock_service.h"
#include "piox_lock.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace piox::adio {

constexpr MPI_Offset kRegionBytes = MPI_Offset(1) << 18;  // 256 KiB: region r -> shard r % n
// A process's extents in one shard, coarsened past this. Coarsening merges a
// process's pieces across the gaps between them, which other processes' interleaved
// pieces fill, so a coarsened request conflicts with its neighbours and the writers
// serialise. 128 keeps examples/atomic_blocks.c's 64 interleaved blocks per call
// exact (at 32 they serialised, 2.5x slower at 8 ranks: bench/atomic demo_blocks);
// a slot is then 2 KiB.
constexpr int kSlotExtents = 128;

enum SlotState : uint32_t { kFree = 0, kWaiting = 1, kSleeping = 2, kGranted = 3 };

// One process's request in one shard. Plain bytes, so MPI can move a table whole.
struct Slot {
    std::atomic<uint32_t> state;  // in shared memory also the waiter's futex word
    uint32_t mode;                // piox_lock_mode
    uint64_t ticket;              // arrival order in the shard
    uint32_t count;
    // Write combining (lock_shm_range.cpp; always 0 across nodes): the request is a
    // sieved write posted in shared memory that a combiner may take, and the
    // combiner that took it (its rank + 1; 0: none). A taken slot stays in the table,
    // so later conflicting requests still wait behind it, but it is never granted:
    // the combiner frees it once the write is done.
    uint16_t combinable;
    uint16_t unused;
    uint32_t taken_by;
    piox_extent extents[kSlotExtents];
};

// What enter() returns when a combiner wrote the request and freed its slot: the
// process holds nothing and its write is done.
constexpr int kServedByCombiner = -1;

inline bool in_use(const Slot &slot) { return slot.state.load(std::memory_order_relaxed) != kFree; }
inline bool waiting(const Slot &slot)
{
    const uint32_t state = slot.state.load(std::memory_order_relaxed);
    return state == kWaiting || state == kSleeping;
}

int shard_count(int processes);

// Across nodes shard s is homed on rank s % size: how many of `shards` rank holds.
inline int shards_homed_on(int rank, int size, int shards)
{
    return shards / size + (rank < shards % size ? 1 : 0);
}

// On entry (under the shard's mutex, `table[me]` filled in with the newest ticket):
// true when an earlier request, granted or waiting, conflicts with it.
bool blocked_on_entry(const Slot *table, int processes, int me);

// On release (under the mutex, the releaser's slot already free): the waiting slots
// that no earlier slot conflicts with any more, in ticket order. Each must be granted.
// A taken slot is never granted.
void grantable(const Slot *table, int processes, std::vector<int> *out);

// Under the mutex, for the combiner `me`, granted in every shard of its request (a
// write, `whole` its whole request as one extent): appends to *out, in ticket order,
// and marks taken, each waiting combinable write whose whole request (requests[w])
// lies inside `whole`, unless a live request that is not taken, ticketed between
// them, conflicts with it (taking it would serve it out of queue order).
// test/model/range_lock.pml -DCOMBINE checks this rule.
void take_combinable(Slot *table, int processes, int me, const piox_extent &whole,
                     const std::vector<piox_extent> &requests, std::vector<int> *out);

// A request cut by shard: pieces[s] holds its extents in shard s, at most
// kSlotExtents of them. Reused from request to request.
class ShardedRequest {
public:
    explicit ShardedRequest(int shards) : pieces_(static_cast<size_t>(shards)) {}
    void split(const ExtentList &normalised);
    const ExtentList &in_shard(int shard) const { return pieces_[static_cast<size_t>(shard)]; }
    int shards() const { return static_cast<int>(pieces_.size()); }

private:
    std::vector<ExtentList> pieces_;
};

// What both implementations share above a shard: a request enters its shards in
// increasing order (which is what rules out deadlock) and leaves them all.
class ShardedRangeLock : public LockService {
public:
    int acquire(piox_lock_mode mode, const ExtentList &extents) final;
    int release() final;

protected:
    explicit ShardedRangeLock(int shards) : request_(shards) {}
    // Returns once this process's slot in the shard is granted.
    // kServedByCombiner instead when a combiner took the request (only before the
    // request holds any shard).
    virtual int enter(int shard, piox_lock_mode mode, const ExtentList &pieces) = 0;
    virtual int leave(int shard) = 0;
    // A write request, granted every shard, is about to write its extents; and it
    // is about to leave them (optimistic reads: lock_shm_range.cpp). None by default.
    virtual void writing_begins(const ExtentList & /*extents*/) {}
    virtual void writing_ends() {}
    // The shards the current request holds, in increasing order.
    const std::vector<int> &held() const { return held_; }

private:
    ShardedRequest request_;  // the current request, cut by shard
    std::vector<int> held_;   // the shards it entered
    bool writing_ = false;    // the current request is a write, granted
};

}  // namespace piox::adio

#endif
