// layout.cpp - the initial chunk layouts (a grid of equal parts, or the paper's
// recursive bisection by weight) and owner lookup.
#include "layout.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <queue>
#include <utility>

namespace desync {

long long Lease::blocks() const
{
    long long n = 1;
    for (size_t k = 0; k < lo.size(); k++)
        n *= hi[k] - lo[k] + 1;
    return n;
}

bool Lease::covers(const Address &a) const
{
    if (a.file() != file || a.version() < v0 || a.version() > v1 || a.n != static_cast<int>(lo.size()) + 2)
        return false;
    for (size_t k = 0; k < lo.size(); k++)
        if (a.d[k + 2] < lo[k] || a.d[k + 2] > hi[k])
            return false;
    return true;
}

namespace {

// The row-major index of coordinates at[0 .. extent.size() - 1] in a file's blocks.
long long linear_index(const std::vector<int> &extent, const int *at)
{
    long long index = 0;
    for (size_t k = 0; k < extent.size(); k++)
        index = index * extent[k] + at[k];
    return index;
}

// Calls f with every coordinate vector from lo to hi, inclusive, in row-major order
// (the odometer: the last coordinate fastest).
template <typename F> void each_coordinate(const std::vector<int> &lo, const std::vector<int> &hi, F f)
{
    std::vector<int> at = lo;
    for (;;) {
        f(at);
        size_t k = at.size();
        while (k > 0 && at[k - 1] == hi[k - 1]) {
            at[k - 1] = lo[k - 1];
            k--;
        }
        if (k == 0)
            return;
        at[k - 1]++;
    }
}

// The recursive bisection by weight (NOTES.md 2.7), on block counts, not on whole
// rows. First each process's count: at least one block, and the rest one at a time
// to the process that would finish its share soonest with it (blocks / weight), so
// the slowest share is as short as whole blocks allow. Then halve the processes and
// give each half the sum of its counts: the region is ordered along its bounding
// box's longest side, then row-major across it, and cut in that order, so a cut that
// falls inside a row of blocks is a staircase (whole slabs and part of the next).
// A process's blocks are then covered by rectangles, its chunks (chunks()). Cuts at
// whole rows rounded each half's share by up to half a row and the errors added up:
// with 15 processes at 1/8 the speed of one, a slow process got 12 blocks of 256
// where 11 are its share, 9% longer per version.
class Bisection {
public:
    Bisection(const std::vector<int> &extent, const std::vector<double> &weights)
        : extent_(extent), owner_(static_cast<size_t>(volume(extent)), -1)
    {
        // The caller guarantees blocks >= processes.
        size_t processes = weights.size();
        counts_.assign(processes, 1);
        using Next = std::pair<double, size_t>; // the time with one more block, process
        std::priority_queue<Next, std::vector<Next>, std::greater<Next>> next;
        for (size_t i = 0; i < processes; i++)
            next.emplace(2 / weights[i], i);
        for (long long left = volume(extent) - static_cast<long long>(processes); left > 0; left--) {
            size_t i = next.top().second;
            next.pop();
            counts_[i]++;
            next.emplace(static_cast<double>(counts_[i] + 1) / weights[i], i);
        }
    }

    // Gives every block of the region (linearised, row-major) an owner among
    // processes first .. last - 1.
    void split(std::vector<long long> region, int first, int last)
    {
        if (last - first == 1) {
            for (long long cell : region)
                owner_[static_cast<size_t>(cell)] = first;
            return;
        }
        int middle = first + (last - first) / 2;
        long long cut = std::accumulate(counts_.begin() + first, counts_.begin() + middle, 0LL);
        order_along_longest_side(&region);
        std::vector<long long> right(region.begin() + cut, region.end());
        region.resize(static_cast<size_t>(cut));
        split(std::move(region), first, middle);
        split(std::move(right), middle, last);
    }

    // The rectangles covering each process's blocks, greedily in row-major order:
    // from the first block not yet covered, grow along the last coordinate, then
    // along each earlier one while the whole slab is the same process's and free.
    void chunks(const Lease &whole, std::vector<Lease> *out)
    {
        std::vector<char> covered(owner_.size(), 0);
        size_t dims = extent_.size();
        for (size_t start = 0; start < owner_.size(); start++) {
            if (covered[start])
                continue;
            int node = owner_[start];
            Lease l = whole;
            l.node = node;
            l.lo = coordinates(static_cast<long long>(start));
            l.hi = l.lo;
            for (size_t k = dims; k-- > 0;)
                while (l.hi[k] + 1 < extent_[k] && slab_free(l, k, node, covered))
                    l.hi[k]++;
            mark(l, &covered);
            out->push_back(l);
        }
    }

private:
    static long long volume(const std::vector<int> &extent)
    {
        long long n = 1;
        for (int e : extent)
            n *= e;
        return n;
    }

    std::vector<int> coordinates(long long cell) const
    {
        std::vector<int> at(extent_.size());
        for (size_t k = extent_.size(); k-- > 0;) {
            at[k] = static_cast<int>(cell % extent_[k]);
            cell /= extent_[k];
        }
        return at;
    }

    long long linear(const std::vector<int> &at) const { return linear_index(extent_, at.data()); }

    // Sorts the region by its coordinate along its bounding box's longest side (the
    // first of equals), then row-major in the others.
    void order_along_longest_side(std::vector<long long> *region) const
    {
        size_t dims = extent_.size();
        std::vector<int> lo(extent_), hi(dims, -1);
        for (long long cell : *region) {
            std::vector<int> at = coordinates(cell);
            for (size_t k = 0; k < dims; k++) {
                lo[k] = std::min(lo[k], at[k]);
                hi[k] = std::max(hi[k], at[k]);
            }
        }
        size_t side = 0;
        for (size_t k = 1; k < dims; k++)
            if (hi[k] - lo[k] > hi[side] - lo[side])
                side = k;
        // Then by the linearised index: row-major within a slab.
        std::vector<std::pair<int, long long>> keyed;
        keyed.reserve(region->size());
        for (long long cell : *region)
            keyed.emplace_back(coordinates(cell)[side], cell);
        std::sort(keyed.begin(), keyed.end());
        for (size_t i = 0; i < keyed.size(); i++)
            (*region)[i] = keyed[i].second;
    }

    // True when the slab that extending l by one along coordinate k adds is all
    // node's blocks and none covered yet.
    bool slab_free(const Lease &l, size_t k, int node, const std::vector<char> &covered) const
    {
        Lease slab = l;
        slab.lo[k] = slab.hi[k] = l.hi[k] + 1;
        bool free = true;
        each_block(slab, [&](long long cell) {
            free = free && owner_[static_cast<size_t>(cell)] == node && !covered[static_cast<size_t>(cell)];
        });
        return free;
    }

    void mark(const Lease &l, std::vector<char> *covered) const
    {
        each_block(l, [&](long long cell) { (*covered)[static_cast<size_t>(cell)] = 1; });
    }

    template <typename F> void each_block(const Lease &l, F f) const
    {
        each_coordinate(l.lo, l.hi, [&](const std::vector<int> &at) { f(linear(at)); });
    }

    std::vector<int> extent_;
    std::vector<long long> counts_; // each process's blocks
    std::vector<int> owner_; // per block, linearised
};

void grid(const Lease &whole, const std::vector<int> &parts, std::vector<Lease> *out)
{
    size_t dims = parts.size();
    std::vector<int> index(dims, 0);
    for (int node = 0;; node++) {
        Lease l = whole;
        for (size_t k = 0; k < dims; k++) {
            long long extent = whole.hi[k] + 1;
            l.lo[k] = static_cast<int>(index[k] * extent / parts[k]);
            l.hi[k] = static_cast<int>((index[k] + 1) * extent / parts[k]) - 1;
        }
        l.node = node;
        out->push_back(l);
        size_t k = dims;
        while (k > 0 && ++index[k - 1] == parts[k - 1])
            index[--k] = 0;
        if (k == 0)
            return;
    }
}

} // namespace

int period_end(const Job &job, const FileShape &f, int v0)
{
    if (job.rebalance == 0)
        return f.versions - 1;
    return static_cast<int>(std::min<long long>(f.versions - 1, static_cast<long long>(v0) + job.rebalance - 1));
}

std::vector<Address> Lease::addresses(int version) const
{
    std::vector<Address> all;
    Address a;
    a.n = static_cast<int>(2 + lo.size());
    a.d[0] = file;
    a.d[1] = version;
    each_coordinate(lo, hi, [&](const std::vector<int> &at) {
        std::copy(at.begin(), at.end(), a.d + 2);
        all.push_back(a);
    });
    return all;
}

std::vector<Lease> period_leases(const Job &job, int processes, int v0, const std::vector<double> &weights)
{
    std::vector<Lease> leases;
    for (const FileShape &f : job.files) {
        if (v0 >= f.versions)
            continue;
        Lease whole;
        whole.file = f.id;
        whole.v0 = v0;
        whole.v1 = period_end(job, f, v0);
        whole.lo.assign(f.extent.size(), 0);
        for (int e : f.extent)
            whole.hi.push_back(e - 1);
        if (v0 == 0 && job.layout.kind == LayoutSpec::Grid) {
            grid(whole, job.layout.grid, &leases);
        } else {
            std::vector<double> w = v0 == 0 ? job.layout.weights : weights;
            if (w.empty())
                w.assign(static_cast<size_t>(processes), 1.0);
            Bisection bisection(f.extent, w);
            std::vector<long long> region(static_cast<size_t>(f.blocks_per_version()));
            std::iota(region.begin(), region.end(), 0LL);
            bisection.split(std::move(region), 0, processes);
            std::vector<Lease> chunks;
            bisection.chunks(whole, &chunks);
            // By process, as the leases always came: the lease indices then follow
            // the ranks.
            std::stable_sort(chunks.begin(), chunks.end(), [](const Lease &a, const Lease &b) { return a.node < b.node; });
            leases.insert(leases.end(), chunks.begin(), chunks.end());
        }
    }
    return leases;
}

LeaseTable::LeaseTable(const Job &job, std::vector<Lease> leases) : job_(job), leases_(std::move(leases))
{
    epochs_.resize(job.files.size());
    for (size_t i = 0; i < leases_.size(); i++)
        index(i);
}

void LeaseTable::add(const std::vector<Lease> &leases)
{
    for (const Lease &l : leases) {
        leases_.push_back(l);
        index(leases_.size() - 1);
    }
}

// Enters lease i in the owner lookup of its file and versions.
void LeaseTable::index(size_t i)
{
    const Job &job = job_;
    const Lease &l = leases_[i];
    size_t fi = 0;
    while (job.files[fi].id != l.file)
        fi++;
    const FileShape &f = job.files[fi];
    // Kept in order of versions (the periods are disjoint) for lease_of's search.
    std::vector<Epoch> &epochs = epochs_[fi];
    auto at_or_after = std::lower_bound(epochs.begin(), epochs.end(), l.v0,
                                        [](const Epoch &e, int v0) { return e.v0 < v0; });
    if (at_or_after == epochs.end() || at_or_after->v0 != l.v0)
        at_or_after = epochs.insert(at_or_after, {l.v0, l.v1, std::vector<int>(static_cast<size_t>(f.blocks_per_version()), -1)});
    Epoch *e = &*at_or_after;
    Address a;
    a.n = static_cast<int>(l.lo.size()) + 2;
    each_coordinate(l.lo, l.hi, [&](const std::vector<int> &at) { // every block of the chunk
        std::copy(at.begin(), at.end(), a.d + 2);
        e->lease_of_block[static_cast<size_t>(linear(f, a))] = static_cast<int>(i);
    });
}

long long LeaseTable::linear(const FileShape &f, const Address &a) const
{
    return linear_index(f.extent, a.d + 2);
}

bool LeaseTable::valid(const Address &a) const
{
    const FileShape *f = job_.file(a.file());
    if (!f || a.n != static_cast<int>(f->extent.size()) + 2 || a.version() < 0 || a.version() >= f->versions)
        return false;
    for (size_t k = 0; k < f->extent.size(); k++)
        if (a.d[k + 2] < 0 || a.d[k + 2] >= f->extent[k])
            return false;
    return true;
}

int LeaseTable::lease_of(const Address &a) const
{
    if (!valid(a))
        return -1;
    size_t fi = 0;
    while (job_.files[fi].id != a.file())
        fi++;
    // The last epoch that begins at or before the version: this is called for every
    // dependency of every block the collector looks at, and periods can be many.
    const std::vector<Epoch> &epochs = epochs_[fi];
    auto after = std::upper_bound(epochs.begin(), epochs.end(), a.version(),
                                  [](int version, const Epoch &e) { return version < e.v0; });
    if (after == epochs.begin() || std::prev(after)->v1 < a.version())
        return -1;
    return std::prev(after)->lease_of_block[static_cast<size_t>(linear(job_.files[fi], a))];
}

} // namespace desync
