// What a reader learned about one path of the shared file system: the answer to
// lstat, and what a load needs next from it: a symlink's target, a directory's names
// (so that a search's misses are answered from memory), a regular file's bytes.
// Items travel between servers encoded (encode/decode) and are never changed after.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace piox_load {

struct Item {
    std::string path;     // absolute and physical: no symlink among its directories
    int error = 0;        // errno of lstat, readlink, opendir or read; 0 when all went well
    uint32_t mode = 0;    // st_mode
    int64_t mtime_ns = 0;
    std::string target;   // a symlink's target, as readlink gives it
    std::unordered_map<std::string, unsigned char> names;  // a directory's entries: d_type
    std::string bytes;    // a regular file's contents
    // A program with file capabilities (security.capability): never run from a copy,
    // which is the user's own file and would run without them.
    bool capabilities = false;

    bool is_directory() const;
    bool is_symlink() const;
    bool is_regular() const;
};


std::string encode(const Item& item);
// False when `data` is not an encoded item (a bad message is never half-used).
bool decode(const char* data, size_t size, Item& item);

}  // namespace piox_load
