// The RMA synchronisations a lock waits for, counted: each MPI_Win_lock,
// MPI_Win_unlock or MPI_Win_flush on another process is one network round trip
// (operations issued before one flush share its round trip). Calls on the caller's
// own memory need no network and are not counted. piox_lock_round_trips() reports
// the count, so that a test can hold a protocol to its cost. For MPI_Win_lock it is
// an upper bound: a library may send the lock request with the epoch's first
// operation (MPICH's lock plus unlock of an empty epoch takes about one round trip).
#ifndef PIOX_ADIO_ROUND_TRIPS_H
#define PIOX_ADIO_ROUND_TRIPS_H

#include <mpi.h>

#include <cstdint>

namespace piox::adio {

class RoundTrips {
public:
    explicit RoundTrips(int self) : self_(self) {}

    int lock(int type, int target, MPI_Win win)
    {
        counted(target);
        return PMPI_Win_lock(type, target, 0, win);
    }
    int unlock(int target, MPI_Win win)
    {
        counted(target);
        return PMPI_Win_unlock(target, win);
    }
    int flush(int target, MPI_Win win)
    {
        counted(target);
        return PMPI_Win_flush(target, win);
    }

    uint64_t count() const { return count_; }

private:
    void counted(int target)
    {
        if (target != self_)
            count_++;
    }

    int self_;
    uint64_t count_ = 0;
};

}  // namespace piox::adio

#endif
