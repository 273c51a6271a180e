// collect.cpp - garbage collection by the paper's rule (NOTES.md 2.5): a block goes
// when it has no reference and all its forward dependencies exist. "Exists" is known
// through frontiers: this process's own, and the others' as the map last sent them
// (late, so never too early). This process's own blocks are freed only at or below
// their lease's frontier, so that an absent block below it is "freed", above it "not
// yet made". A copy of another's block is kept until this process's blocks that
// need it exist; the owner keeps the original for the others.
#include "runtime.h"

namespace desync {

bool Runtime::collectable(Block *b)
{
    const Address &a = b->addr;
    if (b->refs > 0 || b->pins > 0 || !b->forward_known || a.version() == job_.file(a.file())->versions - 1)
        return false;
    bool own = mine(a);
    if ((own || b->replica) && a.version() >= pinned_from_)
        return false; // a re-execution after a loss may need it (recover.cpp)
    if (b->saved == 1 || (b->replica && checkpoint_.is_open() && a.version() > saved_complete_))
        return false; // to be written, by this process or, after a loss, by its taker

    if (own && frontier_[static_cast<size_t>(leases_->lease_of(a))] < a.version())
        return false;
    for (const Address &f : b->forward)
        if ((own || mine(f)) && !made(f))
            return false;
    return true;
}

void Runtime::collect()
{
    collect_due_ = false;
    if (!foreign_.empty())
        return; // remaking blocks: their inputs may be any of these
    std::vector<Block *> gone;
    store_.for_each([&](Block *b) {
        if (collectable(b))
            gone.push_back(b);
    });
    for (Block *b : gone)
        store_.erase(b);
    stats_.freed += static_cast<long long>(gone.size());
}

} // namespace desync
