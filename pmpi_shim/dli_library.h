// The libdli functions the shim's locality remapping calls, loaded with dlopen the
// first time a file asks for locality. Linking libdli would load libcephfs, libcurl
// and some fifty more libraries into every process piox is preloaded into, for the
// few files that want them.
#ifndef PIOX_SHIM_DLI_LIBRARY_H
#define PIOX_SHIM_DLI_LIBRARY_H

#include "dli.h"

#include <string>

namespace piox::shim {

struct DliLibrary {
    decltype(&DLI_map_chunks_comm) map_chunks_comm;
    decltype(&DLI_Sched_static) sched_static;
    decltype(&DLI_Sched_remap) sched_remap;
    decltype(&DLI_free) free;
    decltype(&DLI_last_error) last_error;
};

// libdli, from PIOX_DLI_LIBRARY, else the library directory piox was installed to,
// else piox's build tree, else the dynamic linker's search; null, with *why, when
// none loads. Loaded once per process; never unloaded.
const DliLibrary *dli_library(std::string *why);

}  // namespace piox::shim

#endif
