// See range_shards.h.
#include "range_shards.h"

#include <algorithm>

namespace piox::adio {
namespace {

bool conflict(const Slot &a, const Slot &b)
{
    if (a.mode == PIOX_LOCK_READ && b.mode == PIOX_LOCK_READ)
        return false;
    return overlap(a.extents, a.count, b.extents, b.count);
}

void append(ExtentList *pieces, piox_extent piece)
{
    if (!pieces->empty() && end_of(pieces->back()) >= piece.offset) {
        piox_extent &last = pieces->back();
        last.length = std::max(end_of(last), end_of(piece)) - last.offset;
    } else {
        pieces->push_back(piece);
    }
}

// The waiting slots not taken by a combiner that `keep` accepts, by ticket: the
// queue that grants and takes go through in order.
template <typename Keep>
std::vector<int> waiting_by_ticket(const Slot *table, int processes, Keep keep)
{
    std::vector<int> queue;
    for (int p = 0; p < processes; p++)
        if (waiting(table[p]) && table[p].taken_by == 0 && keep(p))
            queue.push_back(p);
    std::sort(queue.begin(), queue.end(),
              [table](int a, int b) { return table[a].ticket < table[b].ticket; });
    return queue;
}

}  // namespace

int shard_count(int processes)
{
    int shards = 8;
    while (shards < 2 * processes && shards < 64)
        shards *= 2;
    return shards;
}

bool blocked_on_entry(const Slot *table, int processes, int me)
{
    // Every other slot in use arrived earlier: tickets are handed out under the
    // mutex, and ours is the newest.
    for (int p = 0; p < processes; p++)
        if (p != me && in_use(table[p]) && conflict(table[p], table[me]))
            return true;
    return false;
}

void grantable(const Slot *table, int processes, std::vector<int> *out)
{
    out->clear();
    for (int w : waiting_by_ticket(table, processes, [](int) { return true; })) {
        bool blocked = false;
        for (int p = 0; p < processes && !blocked; p++)
            blocked = p != w && in_use(table[p]) && table[p].ticket < table[w].ticket &&
                      conflict(table[p], table[w]);
        if (!blocked)
            out->push_back(w);  // still in use: later waiters see it as granted
    }
}

void take_combinable(Slot *table, int processes, int me, const piox_extent &whole,
                     const std::vector<piox_extent> &requests, std::vector<int> *out)
{
    const Slot &mine = table[me];
    const auto inside_and_later = [&](int w) {
        const piox_extent &request = requests[static_cast<size_t>(w)];
        return w != me && table[w].combinable && table[w].ticket > mine.ticket &&
               request.offset >= whole.offset && end_of(request) <= end_of(whole);
    };
    for (int w : waiting_by_ticket(table, processes, inside_and_later)) {
        bool passed = false;
        for (int q = 0; q < processes && !passed; q++)
            passed = q != w && q != me && in_use(table[q]) && table[q].taken_by == 0 &&
                     table[q].ticket > mine.ticket && table[q].ticket < table[w].ticket &&
                     conflict(table[q], table[w]);
        if (passed)
            continue;
        table[w].taken_by = static_cast<uint32_t>(me + 1);
        out->push_back(w);
    }
}

// Cuts the extents at region boundaries. An extent that spans every shard is given
// whole to each: a superset, and O(shards) instead of O(regions).
void ShardedRequest::split(const ExtentList &extents)
{
    const MPI_Offset shards = static_cast<MPI_Offset>(pieces_.size());
    for (auto &pieces : pieces_)
        pieces.clear();
    for (const piox_extent &extent : extents) {
        const MPI_Offset first = extent.offset / kRegionBytes;
        const MPI_Offset last = (end_of(extent) - 1) / kRegionBytes;
        if (last - first + 1 >= shards) {
            for (auto &pieces : pieces_)
                append(&pieces, extent);
            continue;
        }
        for (MPI_Offset region = first; region <= last; region++) {
            MPI_Offset begin = std::max(extent.offset, region * kRegionBytes);
            MPI_Offset end = std::min(end_of(extent), (region + 1) * kRegionBytes);
            append(&pieces_[static_cast<size_t>(region % shards)], {begin, end - begin});
        }
    }
    for (auto &pieces : pieces_)
        coarsen(&pieces, kSlotExtents);
}

int ShardedRangeLock::acquire(piox_lock_mode mode, const ExtentList &extents)
{
    request_.split(extents);
    held_.clear();
    writing_ = false;
    for (int s = 0; s < request_.shards(); s++) {
        if (request_.in_shard(s).empty())
            continue;
        int rc = enter(s, mode, request_.in_shard(s));
        if (rc != MPI_SUCCESS)
            return rc;
        held_.push_back(s);
    }
    writing_ = mode == PIOX_LOCK_WRITE;
    if (writing_)
        writing_begins(extents);
    return MPI_SUCCESS;
}

int ShardedRangeLock::release()
{
    if (writing_)
        writing_ends();
    writing_ = false;
    int rc = MPI_SUCCESS;
    for (int s : held_) {
        int rc2 = leave(s);
        rc = rc != MPI_SUCCESS ? rc : rc2;
    }
    held_.clear();
    return rc;
}

}  // namespace piox::adio
