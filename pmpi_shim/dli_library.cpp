// See dli_library.h.
#include "dli_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace piox::shim {
namespace {

struct Loaded {
    DliLibrary functions{};
    bool ok = false;
    std::string why;
};

template <typename Function>
bool bind(void *handle, const char *name, Function *function, std::string *why)
{
    *function = reinterpret_cast<Function>(dlsym(handle, name));
    if (*function == nullptr)
        *why = std::string("libdli lacks ") + name;
    return *function != nullptr;
}

Loaded load()
{
    Loaded loaded;
    const char *from_environment = std::getenv("PIOX_DLI_LIBRARY");
    const char *const candidates[] = {
        from_environment != nullptr && *from_environment != '\0' ? from_environment : nullptr,
        PIOX_DLI_INSTALLED, PIOX_DLI_UNINSTALLED, "libdli.so.0"};
    void *handle = nullptr;
    for (const char *path : candidates) {
        if (path == nullptr)
            continue;
        if ((handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != nullptr)
            break;
        const char *error = dlerror();
        loaded.why = error != nullptr ? error : path;
        if (path == from_environment)
            break;  // the one asked for, or none
    }
    if (handle == nullptr)
        return loaded;
    DliLibrary &f = loaded.functions;
    loaded.ok = bind(handle, "DLI_map_chunks_comm", &f.map_chunks_comm, &loaded.why) &&
                bind(handle, "DLI_Sched_static", &f.sched_static, &loaded.why) &&
                bind(handle, "DLI_Sched_remap", &f.sched_remap, &loaded.why) &&
                bind(handle, "DLI_free", &f.free, &loaded.why) &&
                bind(handle, "DLI_last_error", &f.last_error, &loaded.why);
    return loaded;
}

}  // namespace

const DliLibrary *dli_library(std::string *why)
{
    static const Loaded loaded = load();
    if (!loaded.ok)
        *why = "cannot load libdli: " + loaded.why;
    return loaded.ok ? &loaded.functions : nullptr;
}

}  // namespace piox::shim
