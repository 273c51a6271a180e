// The implementations behind piox_lock.h: the sharded range lock in node-shared
// memory (lock_shm_range.cpp) or in MPI windows across nodes (lock_rma_range.cpp),
// and the paper's waitflag mutex (lock_waitflag.cpp).
// lock.cpp checks arguments and picks one at creation.
#ifndef PIOX_ADIO_LOCK_SERVICE_H
#define PIOX_ADIO_LOCK_SERVICE_H

#include "extent_list.h"
#include "piox_lock.h"

#include <cstdint>
#include <memory>

namespace piox::adio {

struct CombinedWrites {
    uint64_t combined_others = 0;     // passes of this process that wrote others' too
    uint64_t combined_by_others = 0;  // writes of this process another wrote
};

class LockService {
public:
    virtual ~LockService() = default;
    // extents are normalised (extent_list.h) and may be empty.
    virtual int acquire(piox_lock_mode mode, const ExtentList &extents) = 0;
    virtual int release() = 0;
    // piox_lock_sieved_write (pieces ascending, disjoint, non-empty; n >= 1): locks
    // the pieces' span for writing, writes them in one sieve pass (sieve_pass.h),
    // releases. MPI_ERR_IO with errno set when the file fails. The shared-memory
    // range lock combines it with other processes' (lock_shm_range.cpp).
    virtual int sieved_write(int fd, const piox_extent *pieces, size_t n, const void *stream);
    // Collective release of windows and the communicator; called once, last.
    virtual int destroy() = 0;
    virtual const char *name() const = 0;
    // Network round trips this process's calls have waited for (round_trips.h);
    // 0 where the lock needs no network.
    virtual uint64_t round_trips() const { return 0; }
    // piox_lock_combined_writes; none where the lock does not combine.
    virtual CombinedWrites combined_writes() const { return {}; }
    // piox_lock_optimistic_begin/_end (extents normalised, non-empty). Where the
    // lock cannot tell whether a write overlapped a read it did not queue (across
    // nodes, the mutex), begin never begins.
    virtual bool optimistic_begin(const ExtentList & /*extents*/) { return false; }
    virtual bool optimistic_valid() { return false; }
};

// Each takes ownership of comm (a private duplicate) only on success.
int make_shm_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out);
int make_rma_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out);
int make_waitflag_mutex(MPI_Comm comm, std::unique_ptr<LockService> *out);

}  // namespace piox::adio

#endif
