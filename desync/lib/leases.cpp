// leases.cpp - a later period's leases arriving (NOTES.md 2.3, 2.7): the new chunks
// of this process get their slots, and the blocks this process made just before
// the period go to the new owners of the blocks made from them (nobody could be told
// before: those blocks had no owner yet).
#include "runtime.h"

#include <algorithm>

namespace desync {

std::vector<char> lease_bytes(const std::vector<Lease> &leases)
{
    std::vector<char> bytes;
    for (const Lease &l : leases) {
        int head[5] = {l.file, l.v0, l.v1, l.node, static_cast<int>(l.lo.size())};
        put_ints(&bytes, head, 5);
        put_ints(&bytes, l.lo.data(), l.lo.size());
        put_ints(&bytes, l.hi.data(), l.hi.size());
    }
    return bytes;
}

bool read_leases(const std::vector<char> &bytes, std::vector<Lease> *leases)
{
    size_t offset = 0;
    while (offset < bytes.size()) {
        int head[5];
        if (!get_ints(bytes, &offset, head, 5) || head[4] < 1 || head[4] > DESYNCH_MAX_DIMS - 2)
            return false;
        Lease l;
        l.file = head[0], l.v0 = head[1], l.v1 = head[2], l.node = head[3];
        l.lo.resize(static_cast<size_t>(head[4]));
        l.hi.resize(static_cast<size_t>(head[4]));
        if (!get_ints(bytes, &offset, l.lo.data(), l.lo.size()) || !get_ints(bytes, &offset, l.hi.data(), l.hi.size()))
            return false;
        leases->push_back(l);
    }
    return true;
}

bool Runtime::leased_to_the_end() const
{
    for (size_t f = 0; f < job_.files.size(); f++)
        if (leased_through_[f] < job_.files[f].versions - 1)
            return false;
    return true;
}

int Runtime::add_leases(const std::vector<Lease> &leases)
{
    size_t first = leases_->leases().size();
    for (const Lease &l : leases) {
        const FileShape *f = job_.file(l.file);
        if (!f || l.node < 0 || l.node >= channel_.size() || l.v0 > l.v1)
            return fail(DESYNC_ERR_MPI, "a lease for no file or process of the job arrived");
        size_t fi = static_cast<size_t>(f - job_.files.data());
        leased_through_[fi] = std::max(leased_through_[fi], l.v1);
    }
    leases_->add(leases);
    for (size_t l = first; l < leases_->leases().size(); l++) {
        const Lease &lease = leases_->lease(static_cast<int>(l));
        frontier_.push_back(lease.v0 - 1); // nothing of it made yet
        map_frontier_.push_back(lease.v0 - 1);
        if (lease.node == channel_.rank()) {
            own_.push_back({static_cast<int>(l), {}});
            if (fill_slots(own_.back()) != DESYNC_SUCCESS)
                return error_;
            advance(own_.back());
        }
    }
    // This process's blocks of the versions just before the new leases: pushed now
    // to the new owners of what is made from them.
    std::vector<Block *> edge;
    store_.for_each([&](Block *b) {
        int l = leases_->lease_of(b->addr);
        if (l >= 0 && l < static_cast<int>(first) && mine(b->addr) && b->forward_known &&
            std::any_of(b->forward.begin(), b->forward.end(),
                        [&](const Address &f) { return leases_->lease_of(f) >= static_cast<int>(first); }))
            edge.push_back(b);
    });
    for (Block *b : edge)
        if (push(b) != DESYNC_SUCCESS)
            return error_;
    scan_due_ = true;
    collect_due_ = true;
    return DESYNC_SUCCESS;
}

} // namespace desync
