// Counts past INT_MAX in MPI-4's large-count routines (MPI_File_write_at_c and the
// rest). MPICH 4.0.2's ROMIO asserts count <= INT_MAX in every one of them, so such
// a call would abort the job. An access of count x datatype moves exactly the bytes,
// in the same order, of one element of a derived datatype that lays count copies of
// datatype end to end (built here from int-count constructors, which every ROMIO
// flattens); the status counts the same bytes, and positions advance the same. So
// piox hands on the one element instead, whichever part of piox or the library then
// moves it. Counts up to INT_MAX are left as they are.
#ifndef PIOX_MPIIO_LARGE_COUNT_H
#define PIOX_MPIIO_LARGE_COUNT_H

#include <mpi.h>

namespace piox::mpiio {

class LargeCount {
  public:
    // Rewrites *count and *datatype when *count > INT_MAX; error() tells whether the
    // derived type could be built (MPI_ERR_COUNT when even that cannot describe it).
    LargeCount(MPI_Count *count, MPI_Datatype *datatype);
    // Frees the derived type: MPI lets a type be freed while an access that uses it
    // is pending (nonblocking and split collective routines).
    ~LargeCount();
    LargeCount(const LargeCount &) = delete;
    LargeCount &operator=(const LargeCount &) = delete;

    int error() const { return error_; }

  private:
    MPI_Datatype derived_ = MPI_DATATYPE_NULL;
    int error_ = MPI_SUCCESS;
};

}  // namespace piox::mpiio

#endif
