// compute.cpp - what this process computes next (NOTES.md 2.4): the oldest version
// first, and in a version the blocks other processes need first; only up to
// `window` versions past its own frontier; only blocks whose backward dependencies
// are all here; and what follows when a block is made.
#include "runtime.h"

#include <algorithm>

namespace desync {

namespace {
const double REQUEST_AFTER_IDLE = 0.002; // seconds without work before asking for inputs
} // namespace

int Runtime::make_slot(const Lease &lease, int version, Slot *slot)
{
    std::vector<desynch_range> ranges = {{lease.file, lease.file}, {version, version}};
    for (size_t k = 0; k < lease.lo.size(); k++)
        ranges.push_back({lease.hi[k], lease.lo[k]});
    chunkdesc chunk = {static_cast<int>(ranges.size()), ranges.data()};
    slot->version = version;
    void *iter = app_->appIterInit(&chunk);
    int storage[DESYNCH_MAX_DIMS];
    blockaddr next = {chunk.numdims, storage};
    std::unordered_set<Address, AddressHash> seen;
    std::string wrong;
    while (app_->appIterNext(iter, &next)) {
        Address a;
        if (!Address::from(&next, &a) || !lease.covers(a) || a.version() != version)
            wrong = "an address outside its chunk";
        else if (!seen.insert(a).second)
            wrong = "block " + a.text() + " twice";
        else
            slot->blocks.push_back(a);
        next = {chunk.numdims, storage};
        if (!wrong.empty())
            break;
    }
    app_->appIterDone(iter);
    if (wrong.empty() && static_cast<long long>(slot->blocks.size()) != lease.blocks())
        wrong = std::to_string(slot->blocks.size()) + " of its " + std::to_string(lease.blocks()) + " blocks";
    if (!wrong.empty())
        return fail(DESYNC_ERR_APP, "the chunk iterator of file " + std::to_string(lease.file) + " version " +
                                        std::to_string(version) + " gave " + wrong);
    // Blocks that other processes will need first (the chunk's edges, for a
    // stencil): the others wait for those, and for nothing else of this chunk.
    std::vector<char> needed_elsewhere(slot->blocks.size(), 0);
    for (size_t i = 0; i < slot->blocks.size(); i++) {
        std::vector<Address> forward;
        bool known = false;
        if (dependencies(slot->blocks[i], DESYNCH_FORWARD, &forward, &known) != DESYNC_SUCCESS)
            return error_;
        needed_elsewhere[i] = std::any_of(forward.begin(), forward.end(),
                                          [&](const Address &f) { return owner(f) != channel_.rank(); });
    }
    std::vector<Address> ordered;
    for (char first : {1, 0})
        for (size_t i = 0; i < slot->blocks.size(); i++)
            if (needed_elsewhere[i] == first)
                ordered.push_back(slot->blocks[i]);
    slot->blocks.swap(ordered);
    slot->remaining = static_cast<long long>(slot->blocks.size());
    slot->done.assign(slot->blocks.size(), 0);
    slot->backward.assign(slot->blocks.size(), {});
    slot->backward_known.assign(slot->blocks.size(), 0);
    return DESYNC_SUCCESS;
}

// Slots for versions frontier + 1 .. frontier + window (the run-ahead window).
int Runtime::fill_slots(OwnLease &own)
{
    const Lease &lease = leases_->lease(own.lease);
    int frontier = frontier_[static_cast<size_t>(own.lease)];
    int next = own.slots.empty() ? frontier + 1 : own.slots.back().version + 1;
    int last = std::min(lease.v1, frontier + job_.window);
    for (; next <= last; next++) {
        own.slots.emplace_back();
        scan_due_ = true;
        Slot &slot = own.slots.back();
        if (make_slot(lease, next, &slot) != DESYNC_SUCCESS)
            return error_;
        for (size_t i = 0; i < slot.blocks.size(); i++)
            if (store_.find(slot.blocks[i])) { // here already: a lost process's chunk taken over
                slot.done[i] = 1;
                slot.remaining--;
            }
    }
    return DESYNC_SUCCESS;
}

int Runtime::dependencies(const Address &a, int dir, std::vector<Address> *deps, bool *known)
{
    deps->clear();
    int maxnum = 16;
    for (int attempt = 0; attempt < 3; attempt++) {
        std::vector<int> storage(static_cast<size_t>(maxnum) * DESYNCH_MAX_DIMS);
        std::vector<blockaddr> entries(static_cast<size_t>(maxnum));
        for (int i = 0; i < maxnum; i++)
            entries[static_cast<size_t>(i)] = {a.n, &storage[static_cast<size_t>(i) * DESYNCH_MAX_DIMS]};
        baddrslist list = {0, maxnum, entries.data()};
        Address copy = a;
        blockaddr self = {copy.n, copy.d};
        *known = app_->appDepList(&self, file_desc(a.file()), &list, dir) != 0;
        if (!*known)
            return DESYNC_SUCCESS;
        if (list.num < 0)
            break;
        if (list.num > maxnum) { // more than fit: ask again with room for all
            maxnum = list.num;
            continue;
        }
        for (int i = 0; i < list.num; i++) {
            Address d;
            if (Address::from(&entries[static_cast<size_t>(i)], &d) && leases_->valid(d))
                deps->push_back(d); // addresses outside every file are ignored (boundaries)
        }
        return DESYNC_SUCCESS;
    }
    return fail(DESYNC_ERR_APP, "appDepList of block " + a.text() + " gave a count it did not fill");
}

// Whether a block can be computed now: every backward dependency is here. A missing
// one that this process made and freed is made again (foreign_); others are asked
// for when request_missing.
int Runtime::ready(std::vector<Address> &deps, char &known, const Address &a, bool request_missing,
                   bool *is_ready)
{
    *is_ready = false;
    if (!known) {
        bool k = false;
        if (dependencies(a, DESYNCH_BACKWARD, &deps, &k) != DESYNC_SUCCESS)
            return error_;
        if (!k)
            return DESYNC_SUCCESS; // the application cannot tell yet
        known = 1;
    }
    bool all = true;
    for (const Address &d : deps) {
        if (store_.find(d))
            continue;
        all = false;
        if (owner(d) < 0)
            continue; // its period is not leased yet: it will be pushed once it is
        if (mine(d) ? made(d) : freed_elsewhere_.count(d) != 0) {
            make_again(d); // freed too early for this reader
        } else if (!mine(d) && request_missing && !requested_.count(d) && request(d) != DESYNC_SUCCESS) {
            return error_;
        }
    }
    *is_ready = all;
    return DESYNC_SUCCESS;
}

// Blocks to make here though made before (freed where they were): made after the
// scan that found them, since the scan holds references into foreign_.
void Runtime::make_again(const Address &a)
{
    recompute_.push_back(a);
    scan_due_ = true;
}

int Runtime::compute_one(bool *computed)
{
    for (const Address &a : recompute_)
        if (!store_.find(a) && std::none_of(foreign_.begin(), foreign_.end(),
                                            [&](const Foreign &f) { return f.addr == a; }))
            foreign_.push_back({a, {}, 0});
    recompute_.clear();
    *computed = false;
    double now = MPI_Wtime();
    bool request_missing = idle_since_ >= 0 && now - idle_since_ >= REQUEST_AFTER_IDLE;
    if (!scan_due_ && !request_missing)
        return DESYNC_SUCCESS;
    scan_due_ = false;
    for (size_t i = 0; i < foreign_.size(); i++) {
        bool ok = false;
        Foreign &f = foreign_[i];
        if (ready(f.backward, f.known, f.addr, true, &ok) != DESYNC_SUCCESS)
            return error_;
        if (ok) {
            Address a = f.addr;
            stats_.recomputed++;
            *computed = true;
            scan_due_ = true;
            idle_since_ = -1;
            return compute(a);
        }
    }
    // The oldest ready block over this process's leases.
    OwnLease *best_lease = nullptr;
    size_t best_slot = 0, best_block = 0;
    for (OwnLease &own : own_) {
        for (size_t s = 0; s < own.slots.size(); s++) {
            Slot &slot = own.slots[s];
            if (best_lease && slot.version >= best_lease->slots[best_slot].version)
                break;
            bool found = false;
            for (size_t i = 0; i < slot.blocks.size() && !found; i++) {
                if (slot.done[i])
                    continue;
                bool ok = false;
                if (ready(slot.backward[i], slot.backward_known[i], slot.blocks[i], request_missing && s == 0,
                          &ok) != DESYNC_SUCCESS)
                    return error_;
                if (ok) {
                    best_lease = &own;
                    best_slot = s;
                    best_block = i;
                    found = true;
                }
            }
            if (found)
                break;
        }
    }
    if (!best_lease) {
        if (idle_since_ < 0 || request_missing)
            idle_since_ = now; // asked once per idle period
        return DESYNC_SUCCESS;
    }
    idle_since_ = -1;
    *computed = true;
    scan_due_ = true; // the next may be ready too
    Address a = best_lease->slots[best_slot].blocks[best_block];
    return compute(a);
}

int Runtime::compute(const Address &a)
{
    computing_ = a;
    Address copy = a;
    blockaddr ba = {copy.n, copy.d};
    double began = MPI_Wtime();
    app_->appCompute(&ba, file_desc(a.file()));
    busy_ += MPI_Wtime() - began;
    computing_ = Address();
    stats_.computed++;
    if (error_ != DESYNC_SUCCESS || other_failed_ || ended_)
        return error_;
    if (!store_.find(a))
        return fail(DESYNC_ERR_APP, "appCompute of block " + a.text() + " did not write it");
    return DESYNC_SUCCESS;
}

// After a block is bound here, written or received: the slot's count, the frontier,
// the forward dependencies (for prefetching and collection), and the pushes.
void Runtime::block_made(Block *b, bool by_this_process)
{
    const Address &a = b->addr;
    scan_due_ = true;
    freed_elsewhere_.erase(a);
    foreign_.erase(std::remove_if(foreign_.begin(), foreign_.end(), [&](const Foreign &f) { return f.addr == a; }),
                   foreign_.end());
    int l = leases_->lease_of(a);
    for (OwnLease &own : own_) {
        if (own.lease != l)
            continue;
        for (Slot &slot : own.slots) {
            if (slot.version != a.version())
                continue;
            auto it = std::find(slot.blocks.begin(), slot.blocks.end(), a);
            size_t i = static_cast<size_t>(it - slot.blocks.begin());
            if (it != slot.blocks.end() && !slot.done[i]) {
                slot.done[i] = 1;
                slot.remaining--;
            }
        }
        advance(own);
    }
    bool known = false;
    if (dependencies(a, DESYNCH_FORWARD, &b->forward, &known) != DESYNC_SUCCESS)
        return;
    b->forward_known = known;
    save_later(b);
    if (by_this_process)
        push(b);
    collect_due_ = true;
}

void Runtime::advance(OwnLease &own)
{
    bool moved = false;
    for (;;) { // new slots can be complete at once (blocks here before the slot)
        bool popped = false;
        while (!own.slots.empty() && own.slots.front().remaining == 0) {
            frontier_[static_cast<size_t>(own.lease)] = own.slots.front().version;
            own.slots.pop_front();
            popped = moved = true;
        }
        if (!popped || fill_slots(own) != DESYNC_SUCCESS || own.slots.empty() || own.slots.front().remaining != 0)
            break;
    }
    if (moved)
        report_due_ = true;
}

bool Runtime::all_done() const
{
    if (!foreign_.empty() || !leased_to_the_end())
        return false;
    for (const OwnLease &own : own_)
        if (frontier_[static_cast<size_t>(own.lease)] < leases_->lease(own.lease).v1)
            return false;
    return true;
}

} // namespace desync
