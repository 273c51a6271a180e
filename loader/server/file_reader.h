// What a reader does to the shared file system: reads the item of a path (item.h),
// with as few requests to the file system as it can. Each path is reached from its
// directory's open handle (one lookup, not one per component and call, which is
// what a file system without a client cache, like NFS with lookupcache=none, sends),
// and a file is reopened through its handle rather than looked up again.
#pragma once

#include <list>
#include <string>
#include <unordered_map>

#include "item.h"

namespace piox_load {

// The first `size` bytes of the regular file that `handle` (an O_PATH handle from a
// lookup that reported `size`) names, into `bytes`: fewer if the file shrank since,
// never more, and never bytes past its new end. 0 or an errno.
int read_regular_file(int handle, size_t size, std::string& bytes);

class FileReader {
  public:
    FileReader() = default;
    ~FileReader();
    FileReader(const FileReader&) = delete;
    FileReader& operator=(const FileReader&) = delete;

    // `path` is absolute and physical (its directories hold no symlink).
    Item read(const std::string& path);

  private:
    int directory_handle(const std::string& path);  // O_PATH, cached; -1 with errno
    void keep(const std::string& path, int handle);

    static constexpr size_t kHandles = 256;  // directories kept open, most recent first
    std::list<std::pair<std::string, int>> handles_;
    std::unordered_map<std::string, std::list<std::pair<std::string, int>>::iterator> by_path_;
};

}  // namespace piox_load
