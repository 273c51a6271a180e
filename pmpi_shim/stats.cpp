// Per-file statistics: one line per process and file, listing the routines piox
// took over and how often each was called.
#include "stats.h"

#include "piox_log.h"

#include <string>

namespace piox::shim {

void print_file_stats(const FileRecord &record)
{
    std::string line;
    for (size_t i = 0; i < kRoutineCount; i++) {
        const uint64_t n = record.calls[i].load(std::memory_order_relaxed);
        if (n != 0)
            line += std::string(" ") + kRoutineNames[i] + "=" + std::to_string(n);
    }
    const mpiio::OpenFile &file = record.file;
    const char *transport = file.sfp ? piox_sfp_transport_name(file.sfp->pointer) : "off";
    const char *lock = file.atomic == nullptr         ? "off"
                       : file.atomic->lock == nullptr ? "unused"
                                                      : piox_lock_kind_name(file.atomic->lock);
    std::string locality = "off";
    if (file.remap != nullptr)
        locality = "remap, local " + std::to_string(file.remap->local_bytes.load()) +
                   " bytes, remote " + std::to_string(file.remap->remote_bytes.load()) + " bytes";
    if (file.aggregate != nullptr)
        locality = "aggregate, read local " + std::to_string(file.aggregate->local_bytes.load()) +
                   " bytes, remote " + std::to_string(file.aggregate->remote_bytes.load()) +
                   " bytes, for others " + std::to_string(file.aggregate->for_others.load()) +
                   " bytes";
    piox_warn("stats '%s': shared pointer %s; atomic-mode locks %s; locality %s;%s",
              record.filename(), transport, lock, locality.c_str(),
              line.empty() ? " no calls taken over" : line.c_str());
}

}  // namespace piox::shim
