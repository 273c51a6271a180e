// What the node's own loader adds to every search, read once at start-up from the
// node (never from the shared file system): the hwcaps subdirectories it tries in
// each directory, the directories of ld.so.cache's entries, and the system
// directories. From `ld.so --list-diagnostics` and `ldconfig -p`.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace piox_load {

struct SystemSearch {
    // Tried in each search directory before the directory itself, in this order
    // (loader/NOTES.md §1.2): the active glibc-hwcaps subdirectories, then the
    // legacy tls and platform ones.
    std::vector<std::string> subdirectories;
    std::vector<std::string> system_directories;  // without the trailing slash
    std::map<std::string, std::string> cache;     // ld.so.cache: name -> path (x86-64 entries)

    // The node's; an error message in `error` when the loader cannot be asked.
    static SystemSearch of_this_node(std::string& error);
};

}  // namespace piox_load
