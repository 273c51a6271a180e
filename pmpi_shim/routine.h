// The wrapped routines as an enumeration (from routines.def; a PIOX_COUNTED line
// gives the routine and its large-count form Name_c), their names, and what kind of
// data access each makes, read off its name.
#ifndef PIOX_SHIM_ROUTINE_H
#define PIOX_SHIM_ROUTINE_H

#include "access_kind.h"

#include <cstddef>

namespace piox::shim {

enum class Routine {
#define PIOX_ROUTINE(part, name, params, args) name,
#define PIOX_COUNTED(part, name, params, args) name, name##_c,
#include "routines.def"
#undef PIOX_ROUTINE
#undef PIOX_COUNTED
};

constexpr const char *kRoutineNames[] = {
#define PIOX_ROUTINE(part, name, params, args) "MPI_" #name,
#define PIOX_COUNTED(part, name, params, args) "MPI_" #name, "MPI_" #name "_c",
#include "routines.def"
#undef PIOX_ROUTINE
#undef PIOX_COUNTED
};

constexpr size_t kRoutineCount = sizeof kRoutineNames / sizeof kRoutineNames[0];

constexpr const char *name_of(Routine routine) { return kRoutineNames[static_cast<size_t>(routine)]; }

namespace naming {

constexpr bool starts_with(const char *text, const char *prefix)
{
    for (; *prefix != '\0'; text++, prefix++)
        if (*text != *prefix)
            return false;
    return true;
}

constexpr bool contains(const char *text, const char *part)
{
    for (; *text != '\0'; text++)
        if (starts_with(text, part))
            return true;
    return false;
}

}  // namespace naming

// MPI's naming rules for data access: "write" in the name writes; "_all" and
// "ordered" are collective; an "i" after "MPI_File_" is nonblocking; "_begin" starts
// a split collective.
template <Routine R>
using AccessOf = mpiio::Access<
    naming::contains(name_of(R), "write") ? mpiio::Direction::write : mpiio::Direction::read,
    naming::contains(name_of(R), "_all") || naming::contains(name_of(R), "ordered"),
    naming::contains(name_of(R), "_begin")             ? mpiio::Completion::split_begin
    : naming::starts_with(name_of(R), "MPI_File_i") ? mpiio::Completion::nonblocking
                                                    : mpiio::Completion::blocking>;

// The end call of a split collective.
constexpr bool is_split_end(Routine routine) { return naming::contains(name_of(routine), "_end"); }
// A routine that writes data (MPI_File_write*, MPI_File_iwrite*).
constexpr bool writes_data(Routine routine) { return naming::contains(name_of(routine), "write"); }

}  // namespace piox::shim

#endif
