// chunk_table.cpp - checking a chunk table before anyone relies on it.
#include "chunk_table.h"

#include "error.h"

namespace dli {

void check_chunk_table(const ChunkTable &table, int code, const std::string &source) {
    int64_t expected = 0;
    for (size_t i = 0; i < table.chunks.size(); ++i) {
        const Chunk &chunk = table.chunks[i];
        if (chunk.offset != expected || chunk.length <= 0)
            throw Error(code, source + ": chunk " + std::to_string(i) + " at offset " +
                                  std::to_string(chunk.offset) + " of length " +
                                  std::to_string(chunk.length) + " does not follow byte " +
                                  std::to_string(expected));
        if (chunk.length > INT64_MAX - expected)
            throw Error(code, source + ": chunk " + std::to_string(i) + " ends past 2^63");
        expected += chunk.length;
        for (const std::string &host : chunk.hosts)
            if (host.empty()) throw Error(code, source + ": chunk " + std::to_string(i) + " names an empty host");
    }
    if (expected != table.file_size)
        throw Error(code, source + ": the chunks end at byte " + std::to_string(expected) +
                              " but the file has " + std::to_string(table.file_size));
}

}  // namespace dli
