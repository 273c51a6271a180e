// filter.h - the selection tests of pftw (--name, --type, --size, --mtime, --newer,
// --user), as pure functions of an entry, so they can be unit-tested without a walk.
#ifndef PFTW_TOOL_FILTER_H
#define PFTW_TOOL_FILTER_H

#include "pftw.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace pftw_tool {

// find's numeric prefixes: "+N" more than N, "-N" less than N, "N" exactly N.
enum class Comparison { less, equal, greater };

bool compare(Comparison how, int64_t value, int64_t reference);

// --size: the entry's st_size rounded *up* to whole units, compared with count
// (find -size: "-size -1M" matches only empty files, since 1 byte rounds up to 1M).
struct SizeTest {
    Comparison how = Comparison::equal;
    uint64_t count = 0;
    uint64_t unit_bytes = 1;
};

// --mtime: whole days (rounded down) between the entry's mtime and the walk's start.
struct MtimeTest {
    Comparison how = Comparison::equal;
    int64_t days = 0;
};

// All the tests given; an entry is selected when every one of them holds (AND).
struct Selection {
    std::optional<std::string> name_glob;
    std::optional<PFTW_Type> type;
    std::optional<SizeTest> size;
    std::optional<MtimeTest> mtime;
    std::optional<timespec> newer_than;  // FILE's mtime, resolved before the walk
    std::optional<uid_t> user;           // resolved before the walk

    bool needs_stat() const { return size || mtime || newer_than || user; }
    bool selects_everything() const { return !name_glob && !type && !needs_stat(); }
};

// The name --name matches: the entry's own name; for the root, the last component
// of the root as given with trailing slashes removed ("a/b/" -> "b", "/" -> "/"), as
// find -name does.
std::string_view name_for_matching(const PFTW_Entry &entry);

bool size_matches(const SizeTest &test, int64_t st_size);

// Whole days from mtime to start, rounded toward minus infinity, so a file from the
// future is -1 days old (find -mtime -0 matches it, -mtime 0 does not).
int64_t age_in_days(const timespec &mtime, const timespec &start);
bool mtime_matches(const MtimeTest &test, const timespec &mtime, const timespec &start);

// a is strictly later than b.
bool is_later(const timespec &a, const timespec &b);

// start: the walk's reference time for --mtime, the same on every rank.
bool entry_selected(const Selection &selection, const PFTW_Entry &entry, const timespec &start);

}  // namespace pftw_tool

#endif
