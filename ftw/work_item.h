// work_item.h - the units of work a rank queues, splits off and sends to peers.
//
// Two kinds: a directory to visit and read, and a batch of names read from one
// directory, to stat and visit. Batches are what keep a directory with millions of
// entries from landing on one rank: its reader queues them as it goes, and idle
// ranks take them like any other work.
#ifndef PFTW_WORK_ITEM_H
#define PFTW_WORK_ITEM_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pftw {

// An open directory, shared by the queued items of this rank that need it: children
// are opened and stat'ed relative to it, never by resolving their full path again.
// Closed when the last item lets go of it.
class OpenDirectory {
public:
    OpenDirectory(int fd, std::atomic<int> *open_count);
    ~OpenDirectory();
    OpenDirectory(const OpenDirectory &) = delete;
    OpenDirectory &operator=(const OpenDirectory &) = delete;
    int fd() const { return fd_; }

private:
    int fd_;
    std::atomic<int> *open_count_;
};
using DirectoryRef = std::shared_ptr<OpenDirectory>;

struct WorkItem {
    enum class Kind : uint8_t { directory = 1, names = 2 };
    Kind kind = Kind::directory;
    int depth = 0;           // of the directory, or of the names in the batch
    std::string path;        // the directory's path, or the batch's parent directory's
    uint32_t name_offset = 0;  // directory: where its own name starts in path (0: root)
    DirectoryRef parent;     // directory: its parent, open (or null: open by path)
                             // names: the batch's directory, open (or null)
    // names only: the names, each followed by a NUL, and their d_type values
    std::string names;
    std::vector<uint8_t> types;

    size_t count() const { return kind == Kind::names ? types.size() : 1; }
};

// Appends the items to buffer in the wire format sent to other ranks (the machine's
// byte order: a walk runs on one architecture).
void serialize_items(const std::vector<WorkItem> &items, std::string *buffer);
// Reads back what serialize_items wrote; false on a malformed buffer.
bool deserialize_items(const char *data, size_t size, std::vector<WorkItem> *items);

// Moves the first `keep_from` names of a batch into a new batch and leaves the rest.
WorkItem split_names(WorkItem *batch, size_t keep_from);

}  // namespace pftw
#endif
