// Explicit instantiations of a function template over the count types of MPI-IO
// routines: int, and MPI_Count where the library has MPI-4's large-count (_c)
// routines (configure's PIOX_HAVE_LARGE_COUNT_IO).
#ifndef PIOX_MPIIO_INSTANTIATE_H
#define PIOX_MPIIO_INSTANTIATE_H

#include <mpi.h>

#if PIOX_HAVE_LARGE_COUNT_IO
#define PIOX_INSTANTIATE_FOR_COUNTS(function)                                              \
    template decltype(function<int>) function<int>;                                        \
    template decltype(function<MPI_Count>) function<MPI_Count>;
#else
#define PIOX_INSTANTIATE_FOR_COUNTS(function) template decltype(function<int>) function<int>;
#endif

#endif
