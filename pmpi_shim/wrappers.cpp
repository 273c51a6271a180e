// Every MPI_* symbol piox defines, generated from routines.def. Each wrapper resolves
// the next definition of its routine once (mpiio/next.h) and hands the call to
// route() for its part (route.h).
//
// Built twice: for libpiox.so the wrappers are the MPI_* names themselves; for
// libpiox.a (PIOX_LINK_WRAP), which programs link with `ld --wrap=MPI_...`
// (piox-config --wrap-ldflags), they are the __wrap_MPI_* names.
#include "file_routines.h"
#include "large_count.h"
#include "lifecycle.h"
#include "next.h"
#include "piox_api.h"
#include "route.h"

namespace piox::shim::handlers {
namespace lifecycle = piox::shim::lifecycle;
namespace record = piox::shim::file_routines;
namespace pointer = piox::mpiio;
namespace sfp = piox::mpiio;
namespace atomicity = piox::mpiio;
namespace offset = piox::mpiio;
}  // namespace piox::shim::handlers

#if PIOX_LINK_WRAP
#define PIOX_WRAPPER_NAME(symbol) __wrap_MPI_##symbol
#else
#define PIOX_WRAPPER_NAME(symbol) MPI_##symbol
#endif

// PIOX_AFTER_NEXT (a, b) -> , a, b   and   PIOX_AFTER_NEXT () -> (nothing)
#define PIOX_AFTER_NEXT(...) __VA_OPT__(, ) __VA_ARGS__

#define PIOX_WRAPPER(part, symbol, handler, params, args, prologue)                           \
    PIOX_DECLARE_WRAPPED_REAL(symbol)                                                         \
    extern "C" PIOX_API int PIOX_WRAPPER_NAME(symbol) params                                  \
    {                                                                                         \
        static const auto next = ::piox::mpiio::resolve_next(                                \
            "MPI_" #symbol, &__real_MPI_##symbol, &PMPI_##symbol);                            \
        prologue;                                                                             \
        return ::piox::shim::route<::piox::shim::Routine::symbol>(                            \
            ::piox::shim::part##_part{}, handler, next PIOX_AFTER_NEXT args);               \
    }

// A count past INT_MAX in a _c routine becomes one element of a derived type
// (mpiio/large_count.h) before piox or the library sees it.
#define PIOX_LARGE_COUNT_PROLOGUE                                                             \
    ::piox::mpiio::LargeCount large_count(&count, &datatype);                                 \
    if (large_count.error() != MPI_SUCCESS)                                                   \
    return ::piox::mpiio::raise_code(fh, large_count.error())

#define PIOX_ROUTINE(part, name, params, args)                                                \
    namespace piox::shim::wrappers {                                                          \
    PIOX_WRAPPER(part, name, &::piox::shim::handlers::part::name, params, args, )            \
    }

#define PIOX_COUNTED_HANDLER(part, routine)                                                   \
    ::piox::shim::counted_handler<::piox::shim::Routine::routine>(::piox::shim::part##_part{})

#if PIOX_HAVE_LARGE_COUNT_IO
#define PIOX_LARGE_COUNT_FORM(part, name, params, args)                                       \
    namespace piox::shim::large_count_form {                                                  \
    using Count = MPI_Count;                                                                  \
    PIOX_WRAPPER(part, name##_c, PIOX_COUNTED_HANDLER(part, name##_c), params, args,          \
                 PIOX_LARGE_COUNT_PROLOGUE)                                                   \
    }
#else
#define PIOX_LARGE_COUNT_FORM(part, name, params, args)
#endif

#define PIOX_COUNTED(part, name, params, args)                                                \
    namespace piox::shim::int_count_form {                                                    \
    using Count = int;                                                                        \
    PIOX_WRAPPER(part, name, PIOX_COUNTED_HANDLER(part, name), params, args, )                \
    }                                                                                         \
    PIOX_LARGE_COUNT_FORM(part, name, params, args)

#include "routines.def"
#undef PIOX_ROUTINE
#undef PIOX_COUNTED
