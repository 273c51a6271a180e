// chunk_table.h - the one thing every provider answers: the chunks of a file, each an
// offset, a length and the hosts holding a replica in replica order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dli {

struct Chunk {
    int64_t offset = 0;
    int64_t length = 0;
    std::vector<std::string> hosts;  // replica order, primary first; may be empty
};

struct ChunkTable {
    std::string file;                // the name it was asked for
    int64_t file_size = 0;
    std::vector<Chunk> chunks;       // offset order, contiguous, covering [0, file_size)
};

// Throws Error(DLI_ERR_PROTOCOL or DLI_ERR_MAP as `code`) when the chunks are not in
// offset order, overlap, leave a gap, or do not end at file_size: a provider calls it on
// what a server or a map file told it before anyone relies on it.
void check_chunk_table(const ChunkTable &table, int code, const std::string &source);

}  // namespace dli
