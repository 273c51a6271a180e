// The byte-range reader/writer lock across nodes, in MPI windows: the protocol of
// range_shards.h with each shard homed on rank shard % size (so the lock state, and
// the traffic, are spread over the processes), plus a fast path for a shard nobody
// else is using. test/model/rma_fast_path.pml checks the protocol below with spin.
//
// State of shard s, on its home rank:
//   the table   the ticket counter and one slot per process (range_shards.h), in a
//               window reached only in exclusive MPI_Win_lock epochs: that epoch is
//               the table's mutex;
//   the mode    one 32-bit word (shard_claims.h): kIdle, fast(p, n) or kTable, and
//               one claim per process (its mode and extents), in a second window
//               that stays in one MPI_Win_lock_all epoch, reached by MPI atomics.
//
// Enter shard s (a process does so in increasing shard order, as before):
//   fast    one round trip: write my claim n and compare-and-swap the mode from
//           kIdle to fast(me, n). It was kIdle: the shard is mine, nothing else to do.
//   table   otherwise, under the mutex: read the table. If it is empty, swap the
//           mode to kTable (a busy table's mode is kTable already); if the mode was
//           fast(p, n), p still holds the shard alone: read p's claim n (again,
//           until it has landed) and enter p in the table, granted, with the next
//           ticket. Then the old protocol: take the next ticket, granted unless an
//           earlier live slot conflicts, write back, let the mutex go; if not
//           granted, MPI_Recv the zero-byte grant.
// Leave shard s:
//   fast    one round trip: compare-and-swap fast(me, n) back to kIdle. It was kTable
//           instead: someone entered me in the table meanwhile; leave as below.
//   table   under the mutex: free my slot, grant in ticket order each waiter that no
//           earlier live slot conflicts with; if the table is now empty, set the mode
//           to kIdle (waited for before the mutex goes); write back; send the grants.
//
// Why it is right:
//   - Invariant, between mutex sections: the table is empty exactly when the mode is
//     kIdle or fast(...). Only a mutex holder moves the mode to or from kTable: to
//     kTable before it adds to an empty table, to kIdle once it has emptied it. Fast
//     compare-and-swaps move it only between kIdle and fast(...).
//   - Mutual exclusion. The holders of a shard are its granted table slots plus the
//     process named by fast(p, n). A fast acquire succeeds only from kIdle, when the
//     table is empty and nobody is named: it is alone. While the mode is fast(p, n),
//     nobody else holds: the table is empty and every other arrival goes to the
//     table, where the first one moves p into it (with p's exact extents, from its
//     claim) before deciding anything. From then on the table decides, with every
//     live request in it, as the one-node lock does.
//   - The claim that is read is p's: the mode word names p and n, p issues claim n
//     with its compare-and-swap (the two may land in either order) and writes no
//     other claim until it has released n, which it cannot do without the mutex
//     once the mode is kTable. A claim read before it has fully landed fails its
//     number or hash and is read again; it lands without p's help, since p's round
//     trip has already been issued.
//   - FIFO per shard, so no starvation: tickets are taken under the mutex, the moved
//     fast holder gets an earlier ticket than the process that moves it (it arrived
//     first), grants follow tickets. The fast path never overtakes anyone: it needs
//     kIdle, so an empty table, so no waiter.
//   - No deadlock: as before, shards are entered in increasing order and a request
//     waits in one shard at a time for earlier tickets only; a moved fast holder is
//     granted, never waiting. The mutex is held for a bounded number of round trips.
//   - No lost wake-up: a waiter is in the table before its entering epoch ends, and
//     every grant is decided under the mutex and sent as a message, which MPI keeps
//     until the waiter receives it. A fast holder that someone queued behind is in the
//     table, so its compare-and-swap fails and it releases through the table, which
//     grants the waiters.
// Cost, counted by RoundTrips (every remote lock, unlock and flush): an uncontended
// acquire plus release of one shard is 2 round trips (it was 6 with the table
// alone: lock, get and flush, put and unlock, twice; about 4 where the library
// sends the lock request with the get). Through the table: entering
// costs the failed fast attempt plus the epoch's 3, plus 1 when the table was
// empty (the swap) and 1 more to read a fast holder's claim; leaving costs the
// epoch's 3, plus 1 when the table empties and 1 for a moved fast holder's failed
// compare-and-swap. Passive-target RMA under
// Debian's MPICH (active messages) progresses only when the home rank is inside MPI
// (README: what the network must offer).
#include "lock_service.h"
#include "range_shards.h"
#include "round_trips.h"
#include "shard_claims.h"
#include "windows.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace piox::adio {
namespace {

constexpr int kGrantTag = 100;  // + shard
constexpr uint32_t kNotFast = 0;  // claim numbers are never 0

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
          table_(static_cast<size_t>(table_bytes(size))), sync_(rank),
          claim_numbers_(static_cast<size_t>(shard_count(size)), kNotFast),
          fast_claims_(static_cast<size_t>(shard_count(size)), kNotFast)
    {
    }

    // Two steps, because the claims window needs sync_, which lives here.
    int create_claims() { return ShardClaims::create(comm_, shard_count(size_), &sync_, &claims_); }

    int destroy() override
    {
        int rc = claims_ ? claims_->destroy() : MPI_SUCCESS;
        int rc2 = free_window_and_comm(&win_, &comm_);
        return rc != MPI_SUCCESS ? rc : rc2;
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

    bool table_is_empty() { return std::none_of(slots(), slots() + size_, in_use); }

    // Under the mutex, before adding to an empty table (a busy table's word is kTable
    // already): the word becomes kTable, and a fast holder it named enters the table,
    // granted, with the next ticket. The swap waits for the get before it: the lock
    // is surely held only then (MPI_Win_lock may return before).
    int take_over_the_word(int shard, int *last_changed)
    {
        uint32_t before = 0;
        int rc = claims_->to_table(shard, &before);
        if (rc != MPI_SUCCESS || !shard_mode::is_fast(before))
            return rc;
        const int holder = shard_mode::holder(before);
        Slot &theirs = slots()[holder];
        rc = claims_->read_claim(shard, holder, shard_mode::number(before), &theirs);
        if (rc != MPI_SUCCESS)
            return rc;
        theirs.ticket = header()->next_ticket++;
        theirs.state.store(kGranted, std::memory_order_relaxed);
        *last_changed = std::max(*last_changed, holder);
        return MPI_SUCCESS;
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
        uint32_t &number = claim_numbers_[static_cast<size_t>(shard)];
        number = (number + 1) & shard_mode::kNumberMask;
        if (number == kNotFast)
            number = 1;
        uint32_t mode_before = 0;
        int rc = claims_->try_fast(shard, number, mode, pieces, &mode_before);
        if (rc != MPI_SUCCESS)
            return rc;
        if (mode_before == shard_mode::kIdle) {
            fast_claims_[static_cast<size_t>(shard)] = number;
            return MPI_SUCCESS;
        }
        return enter_table(shard, mode, pieces);
    }

    int enter_table(int shard, piox_lock_mode mode, const ExtentList &pieces)
    {
        int rc = open_table(shard);
        if (rc != MPI_SUCCESS)
            return rc;
        int last_changed = rank_;  // the put below covers the slots up to this one
        if (table_is_empty()) {
            rc = take_over_the_word(shard, &last_changed);
            if (rc != MPI_SUCCESS) {
                sync_.unlock(home_of(shard, size_), win_);
                return rc;
            }
        }
        Slot &mine = slots()[rank_];
        mine.mode = mode;
        mine.ticket = header()->next_ticket++;
        mine.count = static_cast<uint32_t>(pieces.size());
        std::memcpy(mine.extents, pieces.data(), pieces.size() * sizeof(piox_extent));
        const bool blocked = blocked_on_entry(slots(), size_, rank_);
        mine.state.store(blocked ? kWaiting : kGranted, std::memory_order_relaxed);
        // The header and every slot up to the last one changed: one put; the others'
        // slots are rewritten with what we just read (nobody else can change them
        // meanwhile).
        rc = close_table(shard, 0,
                         sizeof(TableHeader) + sizeof(Slot) * static_cast<size_t>(last_changed + 1));
        if (rc != MPI_SUCCESS || !blocked)
            return rc;
        return PMPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, kGrantTag + shard, comm_,
                         MPI_STATUS_IGNORE);
    }

    int leave(int shard) override
    {
        uint32_t &fast = fast_claims_[static_cast<size_t>(shard)];
        if (fast != kNotFast) {
            bool released = false;
            int rc = claims_->try_release(shard, fast, &released);
            fast = kNotFast;
            if (rc != MPI_SUCCESS || released)
                return rc;
        }
        return leave_table(shard);
    }

    int leave_table(int shard)
    {
        int rc = open_table(shard);
        if (rc != MPI_SUCCESS)
            return rc;
        slots()[rank_].state.store(kFree, std::memory_order_relaxed);
        grantable(slots(), size_, &granted_);
        for (int w : granted_)
            slots()[w].state.store(kGranted, std::memory_order_relaxed);
        if (table_is_empty())
            rc = claims_->to_idle(shard);
        int rc2 = close_table(shard, sizeof(TableHeader), sizeof(Slot) * static_cast<size_t>(size_));
        rc = rc != MPI_SUCCESS ? rc : rc2;
        for (int w : granted_) {
            rc2 = PMPI_Send(nullptr, 0, MPI_BYTE, w, kGrantTag + shard, comm_);
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
    std::unique_ptr<ShardClaims> claims_;
    std::vector<uint32_t> claim_numbers_;  // per shard: the number of our last claim
    std::vector<uint32_t> fast_claims_;    // per shard: the claim we hold it by, or kNotFast
};

}  // namespace

int make_rma_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const int shards = shard_count(size);
    const int mine = shards_homed_on(rank, size, shards);
    void *memory = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    // Zero: every ticket counter 0, every slot free.
    int rc = allocate_zeroed_window(comm, mine * table_bytes(size), &win, &memory);
    if (rc != MPI_SUCCESS)
        return rc;
    auto lock = std::make_unique<RmaRangeLock>(comm, win, rank, size);
    rc = lock->create_claims();
    if (rc != MPI_SUCCESS) {
        PMPI_Win_free(&win);
        return rc;
    }
    *out = std::move(lock);
    return MPI_SUCCESS;
}

}  // namespace piox::adio
