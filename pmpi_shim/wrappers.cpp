// Every MPI_* symbol piox defines, generated from routines.def. Each wrapper resolves
// the library's PMPI_ routine once and hands the call to route() for its part.
#include "atomic_access.h"
#include "lifecycle.h"
#include "piox_api.h"
#include "real.h"
#include "route.h"
#include "sfp_file.h"

namespace piox::shim::handlers {
namespace lifecycle = piox::shim::lifecycle;
namespace record = piox::shim::lifecycle;
namespace sfp = piox::mpiio;
namespace atomicity = piox::mpiio;
namespace atomic = piox::mpiio;
}  // namespace piox::shim::handlers

// PIOX_WITH_REAL (a, b) -> real, a, b   and   PIOX_WITH_REAL () -> real
#define PIOX_WITH_REAL(...) real __VA_OPT__(, ) __VA_ARGS__

#define PIOX_ROUTINE(part, name, params, args)                                               \
    extern "C" PIOX_API int MPI_##name params                                                \
    {                                                                                        \
        static const auto real = piox::shim::resolve_real("PMPI_" #name, &PMPI_##name);      \
        return piox::shim::route<&piox::shim::handlers::part::name>(                         \
            piox::shim::part##_part{}, piox::shim::Routine::name, PIOX_WITH_REAL args);     \
    }
#include "routines.def"
#undef PIOX_ROUTINE
