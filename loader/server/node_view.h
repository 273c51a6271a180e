// The shared file system as this node's server knows it: the items it has received,
// path resolution over them as the kernel resolves (symlinks followed, ".." taken
// physically), and the node's mirror of what it serves, <node dir>/root/<path>.
//
// The mirror reproduces every directory and symlink a served path goes through, so
// that the loader, opening <root>/<path as asked>, reaches one cached inode whatever
// name it used, and $ORIGIN (the directory of the name used) behaves as on the file
// system (loader/NOTES.md §1.6, §7).
#pragma once

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "item.h"

namespace piox_load {

// What a resolution came to: done (the physical path and its item), missing (errno),
// or stopped on a path whose item this node does not have yet.
struct Resolution {
    enum State { kDone, kMissing, kNeed } state = kNeed;
    std::string path;  // kDone: the physical path; kNeed: the item to ask for
    const Item* item = nullptr;  // kDone
    int error = 0;               // kMissing
};

class NodeView {
  public:
    explicit NodeView(std::string mirror_root) : root_(std::move(mirror_root)) {}

    const std::string& mirror_root() const { return root_; }
    const Item* find(const std::string& path) const;
    void add(Item item);

    // Resolves an absolute path; a symlink at its end is followed unless `follow` is
    // false (lstat's view).
    Resolution resolve(const std::string& path, bool follow = true) const;
    // The same walk, creating in the mirror each directory, symlink and the final
    // object it goes through. Call after resolve() came to kDone. Returns 0 or an errno.
    // `strip`: a shared object's copy holds only what the loader reads (its headers and
    // loadable segments; the rest is a hole, so it takes no memory and the size stays).
    // A path made once is not walked again: every process of the node asks for the
    // same libraries, and each walk costs a mkdir and a utimensat per directory.
    int materialize(const std::string& path, bool follow = true, bool strip = false);

    // The directory `where`, of empty entries with the names and types of the
    // directory item `listing`'s. Returns 0 or an errno.
    int make_listing(const std::string& where, const Item& listing) const;

  private:
    template <typename Step>
    Resolution walk(const std::string& path, bool follow, Step&& step) const;

    std::string root_;
    std::unordered_map<std::string, Item> items_;
    std::unordered_set<std::string> materialized_;  // paths, followed or not ('0'/'1' first)
};

std::string parent_of(const std::string& path);  // "/a/b" -> "/a", "/a" -> "/"
std::string join(const std::string& directory, const std::string& name);

}  // namespace piox_load
