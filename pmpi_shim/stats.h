// PIOX_STATS=1: per-file statistics printed when the file is closed.
#ifndef PIOX_SHIM_STATS_H
#define PIOX_SHIM_STATS_H

#include "registry.h"

namespace piox::shim {

void print_file_stats(const FileRecord &record);

}  // namespace piox::shim

#endif
