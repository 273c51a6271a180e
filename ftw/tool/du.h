// du.h - pftw --du: apparent bytes under each top-level child of a root, like
// du -s -b ROOT/* ROOT/.[!.]* (every child, dot-files included). Each thread keeps its
// own tally during the walk; after it, the tallies travel to rank 0 as records
// (name, NUL, 8-byte little-endian total) and are merged there.
#ifndef PFTW_TOOL_DU_H
#define PFTW_TOOL_DU_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pftw_tool {

// One thread's totals per child name ("" stands for a root that is not a directory).
class DuTally {
public:
    void add(std::string_view child, uint64_t bytes);
    // Appends this tally's records to out.
    void serialize(std::string &out) const;
    void clear();

private:
    std::unordered_map<std::string, uint64_t> totals_;
    // Entries of one subtree tend to come in runs on a thread: remember the last
    // child so most adds need no hashing and no string copy.
    std::string last_child_;
    uint64_t *last_total_ = nullptr;
};

// Rank 0's merge of records arriving in chunks that may split a record anywhere.
class DuMerge {
public:
    // Feeds the next bytes of one sender's stream.
    void feed(const char *data, size_t size);
    // Call after each sender's stream ends. Returns false if it ended mid-record.
    bool end_of_stream();
    // Totals by child name, in byte order of the names.
    const std::map<std::string, uint64_t> &totals() const { return totals_; }
    void clear() { totals_.clear(); pending_.clear(); }

private:
    std::map<std::string, uint64_t> totals_;
    std::string pending_;  // an incomplete record carried to the next chunk
};

// One line of --du output: "BYTES\tPATH".
struct DuLine {
    std::string path;
    uint64_t bytes;
};

}  // namespace pftw_tool

#endif
