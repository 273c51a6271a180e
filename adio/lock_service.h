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

class LockService {
public:
    virtual ~LockService() = default;
    // extents are normalised (extent_list.h) and may be empty.
    virtual int acquire(piox_lock_mode mode, const ExtentList &extents) = 0;
    virtual int release() = 0;
    // Collective release of windows and the communicator; called once, last.
    virtual int destroy() = 0;
    virtual const char *name() const = 0;
    // Network round trips this process's calls have waited for (round_trips.h);
    // 0 where the lock needs no network.
    virtual uint64_t round_trips() const { return 0; }
};

// Each takes ownership of comm (a private duplicate) only on success.
int make_shm_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out);
int make_rma_range_lock(MPI_Comm comm, std::unique_ptr<LockService> *out);
int make_waitflag_mutex(MPI_Comm comm, std::unique_ptr<LockService> *out);

}  // namespace piox::adio

#endif
