// paths.h - turning the names the loader asks for into the original paths the server
// knows: mirror prefixes stripped, $ORIGIN expanded, relative paths made absolute.
#pragma once

#include "text.h"

namespace piox_load {

// `path` without the mirror root when it lies under it (a library loaded from the
// cache names its original path this way), else `path` itself.
const char *original_path(const char *path, const char *mirror_root);

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

}  // namespace piox_load
