// filter.cpp - find's selection semantics, one entry at a time.
#include "filter.h"

#include <fnmatch.h>

namespace pftw_tool {

bool compare(Comparison how, int64_t value, int64_t reference) {
    switch (how) {
    case Comparison::less: return value < reference;
    case Comparison::greater: return value > reference;
    case Comparison::equal: break;
    }
    return value == reference;
}

std::string_view name_for_matching(const PFTW_Entry &entry) {
    std::string_view path(entry.path, entry.path_length);
    if (entry.depth > 0)
        return path.substr(entry.name_offset);
    // The root: strip trailing slashes but keep "/" itself.
    while (path.size() > 1 && path.back() == '/')
        path.remove_suffix(1);
    if (path == "/")
        return path;
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool size_matches(const SizeTest &test, int64_t st_size) {
    const uint64_t bytes = st_size < 0 ? 0 : uint64_t(st_size);
    const uint64_t units = bytes / test.unit_bytes + (bytes % test.unit_bytes != 0);
    // Compare unsigned counts: count may exceed INT64_MAX on a silly command line.
    switch (test.how) {
    case Comparison::less: return units < test.count;
    case Comparison::greater: return units > test.count;
    case Comparison::equal: break;
    }
    return units == test.count;
}

int64_t age_in_days(const timespec &mtime, const timespec &start) {
    constexpr int64_t seconds_per_day = 86400;
    // Whole seconds of age, rounded down (a file 0.5 s in the future is -1 s old).
    int64_t seconds = int64_t(start.tv_sec) - int64_t(mtime.tv_sec);
    if (start.tv_nsec < mtime.tv_nsec)
        seconds -= 1;
    int64_t days = seconds / seconds_per_day;
    if (seconds % seconds_per_day != 0 && seconds < 0)
        days -= 1;
    return days;
}

bool mtime_matches(const MtimeTest &test, const timespec &mtime, const timespec &start) {
    return compare(test.how, age_in_days(mtime, start), test.days);
}

bool is_later(const timespec &a, const timespec &b) {
    return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

bool entry_selected(const Selection &selection, const PFTW_Entry &entry, const timespec &start) {
    if (selection.type && entry.type != *selection.type)
        return false;
    if (selection.name_glob) {
        // name_for_matching is a view into entry.path, which is NUL-terminated after
        // the name for every entry but a root with trailing slashes: copy only then.
        const std::string_view name = name_for_matching(entry);
        const bool at_end = name.data() + name.size() == entry.path + entry.path_length;
        const std::string copy = at_end ? std::string() : std::string(name);
        if (fnmatch(selection.name_glob->c_str(), at_end ? name.data() : copy.c_str(), 0) != 0)
            return false;
    }
    if (!selection.needs_stat())
        return true;
    if (!entry.st)
        return false;  // the stat failed: like find, tests on it do not hold
    const struct stat &st = *entry.st;
    if (selection.size && !size_matches(*selection.size, st.st_size))
        return false;
    if (selection.mtime && !mtime_matches(*selection.mtime, st.st_mtim, start))
        return false;
    if (selection.newer_than && !is_later(st.st_mtim, *selection.newer_than))
        return false;
    if (selection.user && st.st_uid != *selection.user)
        return false;
    return true;
}

}  // namespace pftw_tool
