// The MPI library's own routines, found through their PMPI_ names. Under LD_PRELOAD
// dlsym(RTLD_NEXT) finds the library that comes after libpiox; each routine is
// resolved once, on its first call. (A static build would use ld --wrap and
// __real_ names here instead; nothing else changes.)
#ifndef PIOX_SHIM_REAL_H
#define PIOX_SHIM_REAL_H

#include <dlfcn.h>

namespace piox::shim {

template <typename Function>
Function resolve_real(const char *pmpi_name, Function linked)
{
    void *found = dlsym(RTLD_NEXT, pmpi_name);
    return found != nullptr ? reinterpret_cast<Function>(found) : linked;
}

}  // namespace piox::shim

#endif
