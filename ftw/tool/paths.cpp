// paths.cpp - path strings relative to the root as given.
#include "paths.h"

namespace pftw_tool {
namespace {

bool ends_with_slash(std::string_view root) { return !root.empty() && root.back() == '/'; }

// Where the part under the root begins in entry.path (its first character after the
// separating '/'), or path_length for the root itself.
size_t relative_start(std::string_view root, const PFTW_Entry &entry) {
    if (entry.depth == 0 || entry.path_length <= root.size())
        return entry.path_length;
    size_t start = root.size();
    // The library joins root + "/" + name; after a root ending in '/' that doubles it.
    if (entry.path[start] == '/')
        ++start;
    return start;
}

}  // namespace

void append_find_path(std::string &out, std::string_view root, const PFTW_Entry &entry) {
    const size_t start = relative_start(root, entry);
    if (start == entry.path_length) {
        out.append(entry.path, entry.path_length);
        return;
    }
    out.append(root);
    if (!ends_with_slash(root))
        out.push_back('/');
    out.append(entry.path + start, entry.path_length - start);
}

std::string_view top_level_child(std::string_view root, const PFTW_Entry &entry) {
    const size_t start = relative_start(root, entry);
    std::string_view rest(entry.path + start, entry.path_length - start);
    return rest.substr(0, rest.find('/'));
}

std::string child_path(std::string_view root, std::string_view child) {
    std::string path(root);
    if (child.empty())
        return path;
    if (!ends_with_slash(root))
        path.push_back('/');
    path.append(child);
    return path;
}

}  // namespace pftw_tool
