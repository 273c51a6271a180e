// The wrapped routines as an enumeration (from routines.def), for statistics.
#ifndef PIOX_SHIM_ROUTINE_H
#define PIOX_SHIM_ROUTINE_H

#include <cstddef>

namespace piox::shim {

enum class Routine {
#define PIOX_ROUTINE(part, name, params, args) name,
#include "routines.def"
#undef PIOX_ROUTINE
};

constexpr const char *kRoutineNames[] = {
#define PIOX_ROUTINE(part, name, params, args) "MPI_" #name,
#include "routines.def"
#undef PIOX_ROUTINE
};

constexpr size_t kRoutineCount = sizeof kRoutineNames / sizeof kRoutineNames[0];

}  // namespace piox::shim

#endif
