// piox must come before any other PMPI tool in the preload order: a tool that comes
// first takes the program's calls to the routines it defines and passes them to
// PMPI_*, past piox, so piox's pointers and locks would not hold for them. When
// libpiox is loaded, it checks which definition the program will call of each
// routine it wraps (routines.def) and says so, once per job, when some are not
// piox's.
#include "piox_log.h"
#include "routine.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

namespace piox::shim {
namespace {

// Rank 0 of the job, by the launchers' variables (MPI is not running yet); a
// process started without a launcher speaks too.
bool first_rank()
{
    for (const char *variable : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
        if (const char *rank = std::getenv(variable))
            return std::strcmp(rank, "0") == 0;
    return true;
}

#if !PIOX_LINK_WRAP
__attribute__((constructor)) void check_preload_order()
{
    Dl_info piox{};
    if (!dladdr(reinterpret_cast<void *>(&check_preload_order), &piox) || !first_rank())
        return;
    const char *other = nullptr;
    std::string routines;
    size_t hidden = 0;
    for (const char *name : kRoutineNames) {
        Dl_info found{};
        void *routine = dlsym(RTLD_DEFAULT, name);
        if (routine == nullptr || !dladdr(routine, &found) || found.dli_fbase == piox.dli_fbase)
            continue;
        if (hidden++ < 3)
            routines += std::string(hidden > 1 ? ", " : "") + name;
        if (other == nullptr)
            other = found.dli_fname;
    }
    if (hidden == 0)
        return;
    piox_warn("%zu MPI routines piox wraps (%s%s) resolve to %s before libpiox: piox will not "
              "see those calls. Preload libpiox first (LD_PRELOAD=libpiox.so:other.so; the "
              "piox launcher does).",
              hidden, routines.c_str(), hidden > 3 ? ", ..." : "",
              other != nullptr ? other : "another library");
}
#endif

}  // namespace
}  // namespace piox::shim
