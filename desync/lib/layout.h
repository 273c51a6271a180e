// layout.h - chunks and leases (NOTES.md 2.3): a lease gives one process one chunk (a
// rectangle of blocks) of one file for a range of versions, and never changes once
// given, so every process can keep every lease and look owners up locally.
#pragma once

#include "address.h"
#include "job.h"

#include <vector>

namespace desync {

struct Lease {
    int file = 0;
    int v0 = 0, v1 = 0;        // versions v0 .. v1, inclusive
    std::vector<int> lo, hi;   // the chunk: coordinates lo[k] .. hi[k], inclusive
    int node = 0;              // the process (rank in the job's communicator)
    long long blocks() const;  // per version
    bool covers(const Address &a) const;
    std::vector<Address> addresses(int version) const; // its blocks of a version, row-major
};

// The leases of one period: every file's chunks for versions v0 .. v0 + the period
// (job.rebalance, or all versions) - 1, by the job's layout at period 0, else by
// recursive bisection with the weights given (one per process).
std::vector<Lease> period_leases(const Job &job, int processes, int v0, const std::vector<double> &weights);
// The last version of the period that begins at v0, for a file.
int period_end(const Job &job, const FileShape &f, int v0);

// Owner lookup in O(1): per file, the lease of each block (by linearised coordinates),
// per range of versions.
class LeaseTable {
public:
    LeaseTable(const Job &job, std::vector<Lease> leases);
    void add(const std::vector<Lease> &leases); // a later period's
    const std::vector<Lease> &leases() const { return leases_; }
    const Lease &lease(int index) const { return leases_[static_cast<size_t>(index)]; }
    // The index of the lease that covers a, or -1 when no lease does.
    int lease_of(const Address &a) const;
    // True when a names a block of one of the job's files.
    bool valid(const Address &a) const;
    const FileShape *shape(int file) const { return job_.file(file); }

private:
    struct Epoch {
        int v0, v1;
        std::vector<int> lease_of_block;
    };
    long long linear(const FileShape &f, const Address &a) const;
    void index(size_t lease);
    const Job &job_;
    std::vector<Lease> leases_;
    std::vector<std::vector<Epoch>> epochs_; // per file index in job_.files
};

} // namespace desync
