// The search glibc 2.36's loader makes for a library name without '/', replayed over
// the node's view of the file system, so that a process asks once and gets the
// path the loader would have opened (loader/NOTES.md §1.2, §7):
//   the DT_RPATH of the requester, of the objects that loaded it, and of the
//   executable (unless the requester has DT_RUNPATH), LD_LIBRARY_PATH, the
//   requester's DT_RUNPATH, ld.so.cache and the system directories (unless
//   DF_1_NODEFLIB), each directory preceded by its hwcaps subdirectories.
// Not replayed (the loader's own search takes over from there, so nothing is lost):
// relative directories, and $LIB or $PLATFORM.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "elf_dynamic.h"
#include "node_view.h"
#include "system_search.h"

namespace piox_load {

// What a process told its server at hello.
struct ProcessContext {
    std::string executable;                 // original absolute path
    std::vector<std::string> library_path;  // LD_LIBRARY_PATH, split at ':'
};

struct SearchOutcome {
    enum State { kFound, kMissing, kNeed } state = kNeed;
    std::string path;  // kFound: the candidate the loader would open; kNeed: the item to ask for
    // kMissing: every directory searched (hwcaps subdirectories included), in which
    // the client may send the loader's own candidates to a name that does not exist.
    std::vector<std::string> searched;
};

class LibrarySearch {
  public:
    explicit LibrarySearch(SystemSearch system) : system_(std::move(system)) {}

    // `requester`: the original path of the object that needs `name`; "" for the
    // executable. `ancestors`: the objects that loaded it and have a DT_RPATH,
    // nearest first, the executable left out.
    SearchOutcome find(const std::string& name, const std::string& requester,
                       const std::vector<std::string>& ancestors, const ProcessContext& process,
                       const NodeView& view);

  private:
    // The dynamic information of `path`, or the item to ask for first.
    const DynamicInfo* dynamic_info(const std::string& path, const NodeView& view, std::string& need);

    SystemSearch system_;
    std::unordered_map<std::string, DynamicInfo> infos_;  // by physical path
};

}  // namespace piox_load
