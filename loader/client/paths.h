// paths.h - turning the names the loader asks for into the original paths the server
// knows: mirror prefixes stripped, $ORIGIN expanded, relative paths made absolute.
#pragma once

#include "text.h"

namespace piox_load {

// `path` without the mirror root when it lies under it (a library loaded from the
// cache names its original path this way), else `path` itself.
const char *original_path(const char *path, const char *mirror_root);
// The same in place: `path` (writable) loses the mirror root, its original being its
// tail. Returns its new length.
size_t make_original(char *path, const char *mirror_root);

// Appends the directory `path` was opened from, as the loader's $ORIGIN would be:
// everything before its last '/', made absolute against the current directory.
// False when the current directory cannot be had.
bool append_origin_of(const char *path, PathText *out);

enum class Expansion {
    kExpanded,    // `out` holds the name with every $ORIGIN / ${ORIGIN} replaced
    kOtherToken,  // the name has another $ token ($LIB, $PLATFORM, ...): left to the loader
    kTooLong,
};
Expansion expand_origin(const char *name, const char *origin, PathText *out);

// Appends `path`, with the current directory before it when it is relative; false
// when that is needed and cannot be had.
bool append_absolute(const char *path, PathText *out);

// glibc's search path for execvp when PATH is unset.
constexpr const char *kDefaultSearchPath = "/bin:/usr/bin";

// execvp's candidates for `file` in `search_path` (':'-separated; an empty entry is
// the current directory), in order: visit(candidate) for each until it returns
// true. Returns whether one did. A candidate too long for a path is passed over.
template <typename Visit>
bool visit_search_path(const char *search_path, const char *file, Visit visit)
{
    PathText candidate;
    for (const char *start = search_path;; ++start) {
        const char *end = start;
        while (*end && *end != ':')
            ++end;
        candidate.clear();
        if (end != start)
            candidate.append(start, size_t(end - start)).append('/');
        candidate.append(file);
        if (!candidate.overflowed() && visit(candidate.c_str()))
            return true;
        if (!*end)
            return false;
        start = end;
    }
}

}  // namespace piox_load
