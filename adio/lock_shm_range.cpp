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
//
// Write combining (issue 19; test/model/range_lock.pml -DCOMBINE checks the
// protocol). Many processes rewriting finely interleaved bytes of one span (a
// strided view of ints) each do best by data sieving, but sieved writes lock their
// whole spans, so they take turns, each reading and writing the span. Instead, a
// sieved write (piox_lock_sieved_write) posts its pieces and bytes in its process's
// post area of the segment, then queues for its span (rounded out to kCombineAlign,
// so that the spans of interleaved writers coincide) as usual, marked combinable.
// Once granted every shard, it is the combiner: under each shard's mutex it takes
// the waiting combinable writes inside its span (take_combinable), writes its own
// and theirs in one sieve pass, posts each taken writer's result and frees their
// slots with its own at release. A taken writer wakes to find its slot free: its
// write is done, and it never held anything.
//
// Optimistic reads (issue 19; test/model/optimistic_read.pml). The segment ends with
// a table of write marks (write_marks.h): a granted write marks its blocks before it
// writes and unmarks them before it leaves, so a reader that queued for nothing can
// check afterwards that no write overlapped its read.
#include "lock_service.h"
#include "range_shards.h"
#include "sieve_pass.h"
#include "windows.h"
#include "wait.h"
#include "write_marks.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
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

// A process's post area for combined writes, after the shards: its whole request
// (the rounded span it locks), the result its combiner leaves, and the post
// (sieve_pass.h). 64 KiB holds 10,000 ints of a strided view and its one run; a
// write that does not fit is not combinable (it may still combine others').
constexpr size_t kPostAreaBytes = size_t(64) << 10;
constexpr MPI_Offset kCombineAlign = 4096;

struct alignas(64) PostArea {
    piox_extent request;  // written by its owner before it queues
    int32_t result;       // errno of the combined pass, written by the combiner
    char post[kPostAreaBytes - 64];
};
static_assert(sizeof(PostArea) == kPostAreaBytes, "post areas tile the segment");

piox_extent rounded_out(const piox_extent &span)
{
    const MPI_Offset begin = span.offset / kCombineAlign * kCombineAlign;
    const MPI_Offset end = (end_of(span) + kCombineAlign - 1) / kCombineAlign * kCombineAlign;
    return {begin, end - begin};
}

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
          policy_(WaitPolicy::for_lock(size, &reinterpret_cast<SegmentHeader *>(segment)->asleep)),
          marks_(marks_table(segment, size))
    {
    }

    int destroy() override
    {
        return free_window_and_comm(&win_, &comm_);
    }

    const char *name() const override { return "range"; }
    CombinedWrites combined_writes() const override { return combined_; }

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
        WriteMarks::initialise(marks_table(static_cast<char *>(segment), size));
    }

    static size_t segment_bytes(int size) { return marks_offset(size) + WriteMarks::table_bytes(); }

    bool optimistic_begin(const ExtentList &extents) override
    {
        return marks_.begin_reading(extents);
    }
    bool optimistic_valid() override { return marks_.reading_valid(); }

    int sieved_write(int fd, const piox_extent *pieces, size_t n, const void *stream) override
    {
        PostArea &area = post_area(rank_);
        const bool posted = encode_sieve_post(pieces, n, stream, area.post, sizeof(area.post));
        const void *own = area.post;
        if (!posted) {  // too large to take: written by this process alone, maybe with others
            own_post_.resize(sieve_post_bytes(pieces, n));
            encode_sieve_post(pieces, n, stream, own_post_.data(), own_post_.size());
            own = own_post_.data();
        }
        area.request = rounded_out(post_header(own).span);
        combinable_ = posted;
        // Its wait is a sieve pass over the span, with every writer's pieces in it
        // (interleaved writers' spans coincide once rounded out).
        long_pass_ = sieve_pass_ns(area.request.length, static_cast<double>(n) * size_) >
                     WaitPolicy::kSleepAndWakeNs;
        int rc = acquire(PIOX_LOCK_WRITE, ExtentList{area.request});
        combinable_ = false;
        if (rc == kServedByCombiner) {
            if (!held().empty())
                return MPI_ERR_INTERN;  // the model rules this out: a taken write holds nothing
            combined_.combined_by_others++;
            errno = area.result;
            return area.result == 0 ? MPI_SUCCESS : MPI_ERR_IO;
        }
        if (rc != MPI_SUCCESS)
            return rc;
        take_waiting_writes(area.request);
        combined_.combined_others += taken_.empty() ? 0 : 1;
        posts_.assign(1, own);
        for (int w : taken_)
            posts_.push_back(post_area(w).post);
        const int error = sieve_pass(fd, posts_, &scratch_);
        for (int w : taken_)
            post_area(w).result = error;  // published by the state exchange in leave()
        rc = release();
        if (error != 0) {
            errno = error;
            return MPI_ERR_IO;
        }
        return rc;
    }

private:
    void writing_begins(const ExtentList &extents) override { marks_.begin_writing(extents); }
    void writing_ends() override { marks_.end_writing(); }

    // The write marks come last, after the post areas.
    static size_t marks_offset(int size)
    {
        return sizeof(SegmentHeader) + shard_bytes(size) * shard_count(size) +
               sizeof(PostArea) * static_cast<size_t>(size);
    }
    static void *marks_table(char *segment, int size) { return segment + marks_offset(size); }
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
    PostArea &post_area(int process) const
    {
        char *areas = shard_base(segment_, shard_bytes_, shard_count(size_));
        return reinterpret_cast<PostArea *>(areas)[process];
    }

    // The combiner, granted every shard of `whole`: takes what it can in each shard
    // it holds, into taken_ in the order the pass applies them. A write taken in
    // shard s waits there in its first shard, so it has no bytes below s; where it
    // overlaps one taken in a higher shard, that one is queued there and it is not
    // yet: the higher shard's writes go first. Within a shard, ticket order.
    void take_waiting_writes(const piox_extent &whole)
    {
        requests_.assign(static_cast<size_t>(size_), piox_extent{});
        taken_.clear();
        const std::vector<int> &shards = held();
        for (auto s = shards.rbegin(); s != shards.rend(); ++s) {
            ShardHeader &head = header(*s);
            Slot *table = slots(*s);
            head.mutex.lock(policy_);
            // Only a combinable write waiting in this shard has a request that stays
            // put: its owner wrote it before it queued, under this mutex.
            for (int p = 0; p < size_; p++)
                if (waiting(table[p]) && table[p].combinable)
                    requests_[static_cast<size_t>(p)] = post_area(p).request;
            take_combinable(table, size_, rank_, whole, requests_, &taken_);
            head.mutex.unlock();
        }
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
        mine.combinable = combinable_;
        mine.taken_by = 0;
        std::memcpy(mine.extents, pieces.data(), pieces.size() * sizeof(piox_extent));
        const bool blocked = blocked_on_entry(table, size_, rank_);
        mine.state.store(blocked ? kWaiting : kGranted, std::memory_order_release);
        head.mutex.unlock();
        if (blocked && !wait_for_grant(mine))
            return kServedByCombiner;
        return MPI_SUCCESS;
    }

    // Until the slot is granted (true) or, for a combinable write, freed by the
    // combiner that wrote it (false).
    bool wait_for_grant(Slot &mine)
    {
        auto over = [&] {
            const uint32_t state = mine.state.load(std::memory_order_acquire);
            return state == kGranted || state == kFree;
        };
        const WaitPolicy policy =
            mine.combinable && long_pass_ ? policy_.for_long_waits() : policy_;
        if (!policy.wait_actively(over)) {
            while (!over()) {
                uint32_t expected = kWaiting;
                if (mine.state.compare_exchange_strong(expected, kSleeping,
                                                       std::memory_order_acq_rel) ||
                    expected == kSleeping)
                    policy.sleep(&mine.state, kSleeping);
            }
        }
        return mine.state.load(std::memory_order_acquire) == kGranted;
    }

    int leave(int shard) override
    {
        ShardHeader &head = header(shard);
        Slot *table = slots(shard);
        head.mutex.lock(policy_);
        sleepers_.clear();
        // The writes this process combined: done, their results posted. Each owner
        // wakes to find its slot free.
        for (int p = 0; p < size_; p++) {
            if (table[p].taken_by != static_cast<uint32_t>(rank_ + 1))
                continue;
            table[p].taken_by = 0;
            if (table[p].state.exchange(kFree, std::memory_order_acq_rel) == kSleeping)
                sleepers_.push_back(p);
        }
        table[rank_].state.store(kFree, std::memory_order_relaxed);
        grantable(table, size_, &granted_);
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
    WriteMarks marks_;
    std::vector<int> granted_;   // scratch for leave(): the slots it grants
    std::vector<int> sleepers_;  // and those of them, or of the slots it freed, asleep
    // Write combining (sieved_write): whether the request being made may be taken,
    // and the combiner's scratch.
    bool combinable_ = false;
    bool long_pass_ = false;  // its pass would outlast a sleep: WaitPolicy::for_long_waits
    std::vector<char> own_post_;            // this process's post when its area is too small
    std::vector<piox_extent> requests_;     // every process's whole request
    std::vector<int> taken_;                // the writes taken, in the pass's order
    std::vector<const void *> posts_;       // the pass's posts: own, then taken_
    std::vector<char> scratch_;             // the pass's span
    CombinedWrites combined_;
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
