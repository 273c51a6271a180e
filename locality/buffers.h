// buffers.h - the structures handed to callers, each laid out in one malloc'ed block so
// that DLI_free (free) releases all of it. Host names shared by many chunks are stored
// once per block.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "chunk_table.h"
#include "dli.h"

namespace dli {

// Hands out aligned pieces of one block, front to back. Built twice by pack(): first to
// measure (the pieces are scratch memory then), then for real.
class Block {
public:
    template <class T> T *take(size_t count) {
        used_ = (used_ + alignof(T) - 1) / alignof(T) * alignof(T);
        size_t offset = used_;
        used_ += count * sizeof(T);
        if (!base_) {
            scratch_.emplace_back(count * sizeof(T) + alignof(std::max_align_t));
            return reinterpret_cast<T *>(aligned(scratch_.back().data()));
        }
        return reinterpret_cast<T *>(base_ + offset);
    }
    const char *copy(const std::string &text);  // interned within the block

    // Runs fill(block) to measure, allocates, runs it again to write; returns the block.
    // Throws Error(DLI_ERR_NOMEM).
    template <class Root, class Fill> static Root *pack(Fill fill) {
        Block measure;
        fill(measure);
        Block real(measure.used_);
        Root *root = fill(real);
        return root;
    }

private:
    Block() = default;
    explicit Block(size_t bytes);
    static char *aligned(char *p);
    char *base_ = nullptr;
    size_t used_ = 0;
    std::deque<std::vector<char>> scratch_;
    std::map<std::string, const char *> strings_;
};

// FILE's chunks numbered in `which` (all when `which` is empty and all_chunks).
DLI_Chunk_list *pack_chunk_list(const ChunkTable &table, const std::vector<int> &which);
// The whole table, and for each process the chunks with a replica on its host.
DLI_Chunk_map *pack_chunk_map(const ChunkTable &table, const std::vector<std::string> &processes);
DLI_Directory_map *pack_directory_map(const std::string &directory, const std::vector<ChunkTable> &tables,
                                      const std::vector<std::string> &processes);

// The chunks of `table` with a replica on `host`, ascending.
std::vector<int> chunks_local_to(const ChunkTable &table, const std::string &host);

}  // namespace dli
