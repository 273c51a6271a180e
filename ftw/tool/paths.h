// paths.h - the path strings pftw prints, derived from an entry and the root as the
// user gave it: find's spelling for --print, and the top-level child for --du.
#ifndef PFTW_TOOL_PATHS_H
#define PFTW_TOOL_PATHS_H

#include "pftw.h"

#include <string>
#include <string_view>

namespace pftw_tool {

// Appends the entry's path spelled as find prints it: the root as given, then the
// rest joined with '/', with no doubled '/' after a root that ends in one
// (find x/ prints x/y, find x// prints x//y).
void append_find_path(std::string &out, std::string_view root, const PFTW_Entry &entry);

// The first component under the root ("x/a/b/c" under "x" -> "a"); "" for the root.
std::string_view top_level_child(std::string_view root, const PFTW_Entry &entry);

// root joined with one child name, as find would spell that child; root itself for "".
std::string child_path(std::string_view root, std::string_view child);

}  // namespace pftw_tool

#endif
