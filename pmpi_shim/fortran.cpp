// Fortran entry points for every routine of routines.def, for Open MPI only
// (pmpi_shim/Makefile.am builds this file there).
//
// Open MPI's Fortran bindings call PMPI_* directly, so a Fortran program's calls
// would bypass piox's MPI_* symbols. Here each routine gets the symbols that Fortran
// code calls:
//   mpi_file_write_shared_   gfortran, for mpif.h and `use mpi`; also Open MPI's
//                            other manglings (none, __, upper case)
//   ompi_file_write_shared_f Open MPI's mpi_f08 layer: `use mpi_f08` calls
//                            mpi_file_write_shared_f08_ in libmpi_usempif08, which
//                            calls this (as libmpi_mpifh's own mpi_file_write_shared_
//                            does) with the same arguments
// Each converts its arguments (fortran_arguments.h) and calls piox's C entry point,
// MPI_File_write_shared, so the call is routed as if it came from C (and Fortran's
// MPI_FINALIZE reaches piox's teardown).
// (MPICH's Fortran bindings call the C symbols already: no entry points there.)
#include "fortran_arguments.h"
#include "fortran_names.h"  // generated from routines.def: the names in lower and upper case

#include <mpi.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace piox::shim::fortran {

// Who calls an entry point decides how CHARACTER lengths are passed.
struct Mpif {
    using Length = std::size_t;  // mpif.h and `use mpi` code: gfortran >= 8 passes a size_t
};
struct F08 {
    using Length = int;  // Open MPI's mpi_f08 layer: INTEGER, VALUE in its bind(C) interface
};

template <typename... T>
struct TypeList {};

template <typename... Lists>
struct Concat {
    using type = TypeList<>;
};
template <typename... A>
struct Concat<TypeList<A...>> {
    using type = TypeList<A...>;
};
template <typename... A, typename... B, typename... Rest>
struct Concat<TypeList<A...>, TypeList<B...>, Rest...> : Concat<TypeList<A..., B...>, Rest...> {};

template <typename CRoutine>
struct Parameters;
template <typename... C>
struct Parameters<int (*)(C...)> {
    using type = TypeList<C...>;
};

// The types of the hidden length arguments: one Length per string parameter.
template <typename Length, typename CList>
struct HiddenLengthTypes;
template <typename Length, typename... C>
struct HiddenLengthTypes<Length, TypeList<C...>>
    : Concat<std::conditional_t<std::is_same_v<Argument<C>, StringIn>, TypeList<Length>,
                                TypeList<>>...> {};

template <auto CRoutine, typename Length,
          typename CList = typename Parameters<decltype(CRoutine)>::type,
          typename LengthList = typename HiddenLengthTypes<Length, CList>::type>
struct Entry;

// Entry<&MPI_Name, Length>::call is the Fortran MPI_NAME(arguments..., ierr).
template <auto CRoutine, typename Length, typename... C, typename... L>
struct Entry<CRoutine, Length, TypeList<C...>, TypeList<L...>> {
    static void call(typename Argument<C>::Fortran... fortran, MPI_Fint *ierr, L... lengths)
    {
        // (The trailing 0 only keeps the array from being empty.)
        const std::size_t length_list[] = {static_cast<std::size_t>(lengths)..., 0};
        HiddenLengths hidden(length_list);
        // A braced list is evaluated left to right: strings take their lengths in order.
        std::tuple<Argument<C>...> arguments{Argument<C>(fortran, hidden)...};
        const int rc = std::apply([](auto &...argument) { return CRoutine(argument.c()...); },
                                  arguments);
        if (rc == MPI_SUCCESS)
            std::apply([](auto &...argument) { (argument.write_back(), ...); }, arguments);
        if (ierr != nullptr)  // tolerated, as in Open MPI's own bindings
            *ierr = static_cast<MPI_Fint>(rc);
    }
};

}  // namespace piox::shim::fortran

#define PIOX_FORTRAN_ENTRY(caller, name)                                                   \
    piox::shim::fortran::Entry<&MPI_##name, piox::shim::fortran::caller::Length>::call

// C++ cannot give C linkage to a function whose parameters come from a template,
// so each Fortran symbol is a GNU indirect function: its resolver, run once when
// the symbol is bound, returns the Entry instance. (Resolvers are hidden rather
// than static: clang cannot find a static one by name.) The symbols are exported
// by their visibility: libtool's -export-symbols list skips indirect functions.
#define PIOX_STRINGIFY(x) #x
#define PIOX_FORTRAN_RESOLVER(caller, name)                                                \
    extern "C" __attribute__((visibility("hidden")))                                      \
    decltype(&PIOX_FORTRAN_ENTRY(caller, name)) piox_fortran_resolve_##caller##_##name()   \
    {                                                                                      \
        return &PIOX_FORTRAN_ENTRY(caller, name);                                          \
    }
#define PIOX_FORTRAN_SYMBOL(symbol, caller, name)                                          \
    extern "C" __attribute__((visibility("default")))                                     \
    decltype(PIOX_FORTRAN_ENTRY(caller, name)) symbol                                      \
        __attribute__((ifunc(PIOX_STRINGIFY(piox_fortran_resolve_##caller##_##name))));

#define PIOX_FORTRAN_ENTRY_POINTS(name, lower, upper)                                      \
    PIOX_FORTRAN_RESOLVER(Mpif, name)                                                      \
    PIOX_FORTRAN_SYMBOL(mpi_##lower##_, Mpif, name)                                        \
    PIOX_FORTRAN_SYMBOL(mpi_##lower, Mpif, name)                                           \
    PIOX_FORTRAN_SYMBOL(mpi_##lower##__, Mpif, name)                                       \
    PIOX_FORTRAN_SYMBOL(MPI_##upper, Mpif, name)                                           \
    PIOX_FORTRAN_RESOLVER(F08, name)                                                       \
    PIOX_FORTRAN_SYMBOL(ompi_##lower##_f, F08, name)
// PIOX_FORTRAN_NAMES_File_open expands to `file_open, FILE_OPEN` first.
#define PIOX_FORTRAN_EXPAND(macro, ...) macro(__VA_ARGS__)

// Open MPI 4.1 has no large-count (_c) routines: a PIOX_COUNTED line gives one.
#define PIOX_ROUTINE(part, name, params, args)                                             \
    PIOX_FORTRAN_EXPAND(PIOX_FORTRAN_ENTRY_POINTS, name, PIOX_FORTRAN_NAMES_##name)
#define PIOX_COUNTED PIOX_ROUTINE
#include "routines.def"
#undef PIOX_ROUTINE
#undef PIOX_COUNTED
