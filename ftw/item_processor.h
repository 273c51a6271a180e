// item_processor.h - doing one work item on one thread: open and read a directory
// with getdents64, stat entries relative to their directory's descriptor, call visit,
// and queue what is left to do.
#ifndef PFTW_ITEM_PROCESSOR_H
#define PFTW_ITEM_PROCESSOR_H

#include "walk_context.h"

#include <atomic>
#include <memory>
#include <string>

#include <sys/stat.h>

namespace pftw {

class ItemProcessor {
public:
    ItemProcessor(WalkContext *context, int thread);
    void process(WorkItem &item);
    const ThreadTally &tally() const { return tally_; }
    // Entries visited so far, readable from another thread (for progress reports).
    uint64_t visited() const { return visited_.load(std::memory_order_relaxed); }

private:
    void read_directory(WorkItem &item);
    void directory_unopenable(WorkItem &item, int error);
    void read_entries(const WorkItem &item, const DirectoryRef &directory);
    void visit_names(WorkItem &batch);
    // Calls visit and counts the entry; returns what visit returned.
    int visit(const std::string &path, size_t name_offset, PFTW_Type type, int depth,
              const struct stat *st, int error);
    bool stat_at(int dir, const char *name, struct stat *st, int *error);
    bool reads_below(int depth) const;

    WalkContext *context_;
    int thread_;
    ThreadTally tally_;
    std::atomic<uint64_t> visited_{0};  // written by this thread only
    std::unique_ptr<char[]> dirent_buffer_;
    std::string path_;  // the entry path being built, reused
};

}  // namespace pftw
#endif
