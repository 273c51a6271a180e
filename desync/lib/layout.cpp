// layout.cpp - the initial chunk layouts (a grid of equal parts, or the paper's
// recursive bisection by weight) and owner lookup.
#include "layout.h"

#include <algorithm>
#include <numeric>

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

// Splits the rectangle [lo, hi] among processes first .. last - 1, in proportion to
// their weights: halve the processes, cut the longest side where the weights say
// (whole blocks, each side at least as many blocks as it has processes), recurse.
void bisect(const Lease &rect, int first, int last, const std::vector<double> &weights,
            std::vector<Lease> *out)
{
    if (last - first == 1) {
        Lease l = rect;
        l.node = first;
        out->push_back(l);
        return;
    }
    int middle = first + (last - first) / 2;
    double left = std::accumulate(weights.begin() + first, weights.begin() + middle, 0.0);
    double all = std::accumulate(weights.begin() + first, weights.begin() + last, 0.0);
    size_t side = 0;
    for (size_t k = 1; k < rect.lo.size(); k++)
        if (rect.hi[k] - rect.lo[k] > rect.hi[side] - rect.lo[side])
            side = k;
    long long length = rect.hi[side] - rect.lo[side] + 1, across = rect.blocks() / length;
    long long cut = static_cast<long long>(length * left / all + 0.5);
    // Each half needs at least one block per process, which the caller guarantees
    // overall (blocks >= processes).
    long long min_left = (middle - first + across - 1) / across;
    long long min_right = (last - middle + across - 1) / across;
    cut = std::max(cut, min_left);
    cut = std::min(cut, length - min_right);
    Lease a = rect, b = rect;
    a.hi[side] = rect.lo[side] + static_cast<int>(cut) - 1;
    b.lo[side] = a.hi[side] + 1;
    bisect(a, first, middle, weights, out);
    bisect(b, middle, last, weights, out);
}

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
    for (size_t k = 0; k < lo.size(); k++)
        a.d[2 + k] = lo[k];
    for (;;) {
        all.push_back(a);
        size_t k = lo.size();
        while (k > 0 && a.d[1 + k] == hi[k - 1]) { // the odometer: last coordinate fastest
            a.d[1 + k] = lo[k - 1];
            k--;
        }
        if (k == 0)
            return all;
        a.d[1 + k]++;
    }
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
            bisect(whole, 0, processes, w, &leases);
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
    std::vector<Epoch> &epochs = epochs_[fi];
    Epoch *e = nullptr;
    for (Epoch &candidate : epochs)
        if (candidate.v0 == l.v0 && candidate.v1 == l.v1)
            e = &candidate;
    if (!e) {
        epochs.push_back({l.v0, l.v1, std::vector<int>(static_cast<size_t>(f.blocks_per_version()), -1)});
        e = &epochs.back();
    }
    Address a;
    a.n = static_cast<int>(l.lo.size()) + 2;
    std::vector<int> at = l.lo;
    for (;;) { // every block of the chunk
        for (size_t k = 0; k < at.size(); k++)
            a.d[k + 2] = at[k];
        e->lease_of_block[static_cast<size_t>(linear(f, a))] = static_cast<int>(i);
        size_t k = at.size();
        while (k > 0 && at[k - 1] == l.hi[k - 1]) {
            at[k - 1] = l.lo[k - 1];
            k--;
        }
        if (k == 0)
            break;
        at[k - 1]++;
    }
}

long long LeaseTable::linear(const FileShape &f, const Address &a) const
{
    long long index = 0;
    for (size_t k = 0; k < f.extent.size(); k++)
        index = index * f.extent[k] + a.d[k + 2];
    return index;
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
    for (const Epoch &e : epochs_[fi])
        if (a.version() >= e.v0 && a.version() <= e.v1)
            return e.lease_of_block[static_cast<size_t>(linear(job_.files[fi], a))];
    return -1;
}

} // namespace desync
