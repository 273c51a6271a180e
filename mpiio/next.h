// The next definition of an MPI routine after piox's own: where piox passes on
// every call it does not take over, and the data of the calls it does. With an I/O
// monitor (Darshan, mpiP, a site's tool) preloaded after libpiox that is the
// monitor's routine, so the monitor sees every byte piox moves and still reaches its
// own MPI_Finalize; with none, the MPI library's.
//
// Where piox is linked statically with `ld --wrap=MPI_...` (libpiox.a, piox-config),
// its routines are the __wrap_ names and the linker binds each __real_ name to the
// library's routine: the weak __real_ declarations below are then non-null, and
// nothing else changes. (Under LD_PRELOAD nobody defines them: they stay null.)
#ifndef PIOX_MPIIO_NEXT_H
#define PIOX_MPIIO_NEXT_H

#include <mpi.h>

#include <dlfcn.h>

#include <type_traits>

namespace piox::mpiio {

// The routine named mpi_name ("MPI_File_write_at") that piox's definition hides:
// `wrapped` (the __real_ name, statically linked with --wrap), else the next
// definition after libpiox in the dynamic linker's search order, else the library's
// `pmpi` entry.
template <typename Function>
Function resolve_next(const char *mpi_name, Function wrapped, Function pmpi)
{
    if (wrapped != nullptr)
        return wrapped;
    void *found = dlsym(RTLD_NEXT, mpi_name);
    return found != nullptr ? reinterpret_cast<Function>(found) : pmpi;
}

}  // namespace piox::mpiio

// Declares the weak __real_MPI_name that `ld --wrap=MPI_name` binds.
#define PIOX_DECLARE_WRAPPED_REAL(name) \
    extern "C" decltype(PMPI_##name) __real_MPI_##name __attribute__((weak));

// The next MPI_name, resolved on first use.
#define PIOX_NEXT_ROUTINE(name)                                                            \
    ([] {                                                                                  \
        static const auto found =                                                          \
            ::piox::mpiio::resolve_next("MPI_" #name, &__real_MPI_##name, &PMPI_##name);   \
        return found;                                                                      \
    }())

// The explicit-offset routines piox moves data with, in the count form Count: int
// for MPI_Name, MPI_Count for MPI_Name_c (data_access.h picks the form the program
// called, so that a monitor sees the same routine).
#if PIOX_HAVE_LARGE_COUNT_IO
#define PIOX_NEXT_IN_FORM(name, Count)                                                     \
    [] {                                                                                   \
        if constexpr (std::is_same_v<Count, int>)                                          \
            return PIOX_NEXT_ROUTINE(name);                                                \
        else                                                                               \
            return PIOX_NEXT_ROUTINE(name##_c);                                            \
    }()
#define PIOX_DECLARE_WRAPPED_REALS(name) \
    PIOX_DECLARE_WRAPPED_REAL(name) PIOX_DECLARE_WRAPPED_REAL(name##_c)
#else
#define PIOX_NEXT_IN_FORM(name, Count) PIOX_NEXT_ROUTINE(name)
#define PIOX_DECLARE_WRAPPED_REALS(name) PIOX_DECLARE_WRAPPED_REAL(name)
#endif

PIOX_DECLARE_WRAPPED_REALS(File_read_at)
PIOX_DECLARE_WRAPPED_REALS(File_write_at)
PIOX_DECLARE_WRAPPED_REALS(File_read_at_all)
PIOX_DECLARE_WRAPPED_REALS(File_write_at_all)
PIOX_DECLARE_WRAPPED_REALS(File_iread_at)
PIOX_DECLARE_WRAPPED_REALS(File_iwrite_at)
PIOX_DECLARE_WRAPPED_REALS(File_iread_at_all)
PIOX_DECLARE_WRAPPED_REALS(File_iwrite_at_all)
PIOX_DECLARE_WRAPPED_REALS(File_read_at_all_begin)
PIOX_DECLARE_WRAPPED_REALS(File_write_at_all_begin)
PIOX_DECLARE_WRAPPED_REAL(File_read_at_all_end)
PIOX_DECLARE_WRAPPED_REAL(File_write_at_all_end)
// The individual-pointer routines (transfer.h: Positioning::individual_pointer).
PIOX_DECLARE_WRAPPED_REAL(File_seek)
PIOX_DECLARE_WRAPPED_REALS(File_read)
PIOX_DECLARE_WRAPPED_REALS(File_write)
PIOX_DECLARE_WRAPPED_REALS(File_read_all)
PIOX_DECLARE_WRAPPED_REALS(File_write_all)
PIOX_DECLARE_WRAPPED_REALS(File_iread)
PIOX_DECLARE_WRAPPED_REALS(File_iwrite)
PIOX_DECLARE_WRAPPED_REALS(File_iread_all)
PIOX_DECLARE_WRAPPED_REALS(File_iwrite_all)
PIOX_DECLARE_WRAPPED_REALS(File_read_all_begin)
PIOX_DECLARE_WRAPPED_REALS(File_write_all_begin)
PIOX_DECLARE_WRAPPED_REAL(File_read_all_end)
PIOX_DECLARE_WRAPPED_REAL(File_write_all_end)

#endif
