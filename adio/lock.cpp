// The C ABI of the byte-range lock (piox_lock.h): argument checks, the one-request
// rule, and the choice of implementation.
#include "lock_service.h"
#include "one_node.h"
#include "piox_log.h"
#include "piox_comm.h"

#include <memory>

struct piox_lock {
    std::unique_ptr<piox::adio::LockService> service;
    bool holding = false;
    bool reading_optimistically = false;
    piox::adio::ExtentList scratch;  // reused by every acquire
};

extern "C" int piox_lock_create(MPI_Comm comm, piox_lock_kind kind, piox_lock **lock)
{
    if (lock == nullptr || (kind != PIOX_LOCK_RANGE && kind != PIOX_LOCK_MUTEX))
        return MPI_ERR_ARG;
    *lock = nullptr;
    MPI_Comm own = MPI_COMM_NULL;
    int rc = piox_comm_dup_private(comm, &own);
    if (rc != MPI_SUCCESS)
        return rc;

    std::unique_ptr<piox::adio::LockService> service;
    if (kind == PIOX_LOCK_RANGE) {
        int one_node = 0;
        rc = piox::adio::comm_on_one_node(comm, own, &one_node);
        if (rc == MPI_SUCCESS)  // one_node is agreed: every process makes the same kind
            rc = one_node ? piox::adio::make_shm_range_lock(own, &service)
                          : piox::adio::make_rma_range_lock(own, &service);
    } else {
        rc = piox::adio::make_waitflag_mutex(own, &service);
    }
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&own);
        return rc;
    }
    *lock = new piox_lock{std::move(service)};
    return MPI_SUCCESS;
}

extern "C" int piox_lock_free(piox_lock **lock)
{
    if (lock == nullptr || *lock == nullptr)
        return MPI_ERR_ARG;
    int rc = (*lock)->service->destroy();
    delete *lock;
    *lock = nullptr;
    return rc;
}

namespace {

// The checks and the normalising that acquire and optimistic_begin share: MPI_ERR_ARG
// for bad extents, MPI_ERR_OTHER while a request is held or a read is optimistic;
// else the extents, normalised, in lock->scratch.
int take_extents(piox_lock *lock, const piox_extent *extents, int n)
{
    if (n < 0 || (n > 0 && extents == nullptr))
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (extents[i].offset < 0 || extents[i].length < 0)
            return MPI_ERR_ARG;
    if (lock->holding || lock->reading_optimistically)
        return MPI_ERR_OTHER;
    lock->scratch.assign(extents, extents + n);
    piox::adio::normalise(&lock->scratch);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" int piox_lock_acquire(piox_lock *lock, piox_lock_mode mode, const piox_extent *extents,
                                 int n)
{
    if (lock == nullptr || (mode != PIOX_LOCK_READ && mode != PIOX_LOCK_WRITE))
        return MPI_ERR_ARG;
    int rc = take_extents(lock, extents, n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = lock->service->acquire(mode, lock->scratch);
    lock->holding = rc == MPI_SUCCESS;
    return rc;
}

extern "C" int piox_lock_release(piox_lock *lock)
{
    if (lock == nullptr)
        return MPI_ERR_ARG;
    if (!lock->holding)
        return MPI_ERR_OTHER;
    lock->holding = false;
    return lock->service->release();
}

extern "C" int piox_lock_optimistic_begin(piox_lock *lock, const piox_extent *extents, int n,
                                          int *begun)
{
    if (lock == nullptr || begun == nullptr)
        return MPI_ERR_ARG;
    *begun = 0;
    const int rc = take_extents(lock, extents, n);
    if (rc != MPI_SUCCESS)
        return rc;
    lock->reading_optimistically =
        !lock->scratch.empty() && lock->service->optimistic_begin(lock->scratch);
    *begun = lock->reading_optimistically ? 1 : 0;
    return MPI_SUCCESS;
}

extern "C" int piox_lock_optimistic_end(piox_lock *lock, int *valid)
{
    if (lock == nullptr || valid == nullptr)
        return MPI_ERR_ARG;
    if (!lock->reading_optimistically)
        return MPI_ERR_OTHER;
    lock->reading_optimistically = false;
    *valid = lock->service->optimistic_valid() ? 1 : 0;
    return MPI_SUCCESS;
}

extern "C" int piox_lock_sieved_write(piox_lock *lock, int fd, const piox_extent *pieces, int n,
                                      const void *stream)
{
    if (lock == nullptr || fd < 0 || n < 1 || pieces == nullptr || stream == nullptr)
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (pieces[i].offset < 0 || pieces[i].length <= 0 ||
            (i > 0 && pieces[i].offset < piox::adio::end_of(pieces[i - 1])))
            return MPI_ERR_ARG;
    if (lock->holding || lock->reading_optimistically)
        return MPI_ERR_OTHER;
    return lock->service->sieved_write(fd, pieces, static_cast<size_t>(n), stream);
}

extern "C" int piox_lock_combined_writes(const piox_lock *lock, long long *combined_others,
                                         long long *combined_by_others)
{
    if (lock == nullptr || combined_others == nullptr || combined_by_others == nullptr)
        return MPI_ERR_ARG;
    const piox::adio::CombinedWrites counts = lock->service->combined_writes();
    *combined_others = static_cast<long long>(counts.combined_others);
    *combined_by_others = static_cast<long long>(counts.combined_by_others);
    return MPI_SUCCESS;
}

extern "C" int piox_lock_round_trips(const piox_lock *lock, long long *count)
{
    if (lock == nullptr || count == nullptr)
        return MPI_ERR_ARG;
    *count = static_cast<long long>(lock->service->round_trips());
    return MPI_SUCCESS;
}

extern "C" const char *piox_lock_kind_name(const piox_lock *lock)
{
    return lock == nullptr ? "none" : lock->service->name();
}
