// buffers.cpp - laying out the caller's structures in one block each.
#include "buffers.h"

#include <cstring>
#include <numeric>

#include "error.h"
#include "hosts.h"

namespace dli {

Block::Block(size_t bytes) {
    base_ = static_cast<char *>(std::malloc(bytes ? bytes : 1));
    if (!base_) throw Error(DLI_ERR_NOMEM, "cannot allocate " + std::to_string(bytes) + " bytes");
}

char *Block::aligned(char *p) {
    auto address = reinterpret_cast<uintptr_t>(p);
    uintptr_t a = alignof(std::max_align_t);
    return reinterpret_cast<char *>((address + a - 1) / a * a);
}

const char *Block::copy(const std::string &text) {
    auto found = strings_.find(text);
    if (found != strings_.end()) return found->second;
    char *out = take<char>(text.size() + 1);
    std::memcpy(out, text.c_str(), text.size() + 1);
    strings_.emplace(text, out);
    return out;
}

std::vector<int> chunks_local_to(const ChunkTable &table, const std::string &host) {
    std::vector<int> local;
    for (size_t i = 0; i < table.chunks.size(); ++i)
        for (const std::string &replica : table.chunks[i].hosts)
            if (same_host(replica, host)) {
                local.push_back(static_cast<int>(i));
                break;
            }
    return local;
}

namespace {

void fill_chunk_list(Block &block, const ChunkTable &table, const std::vector<int> &which,
                     DLI_Chunk_list *list) {
    list->file = block.copy(table.file);
    list->file_size = table.file_size;
    list->total_chunks = static_cast<int>(table.chunks.size());
    list->count = static_cast<int>(which.size());
    list->chunks = block.take<DLI_Chunk>(which.size());
    for (size_t i = 0; i < which.size(); ++i) {
        const Chunk &chunk = table.chunks[static_cast<size_t>(which[i])];
        DLI_Chunk &out = list->chunks[i];
        out.offset = chunk.offset;
        out.length = chunk.length;
        out.index = which[i];
        out.nhosts = static_cast<int>(chunk.hosts.size());
        out.hosts = block.take<const char *>(chunk.hosts.size());
        for (size_t h = 0; h < chunk.hosts.size(); ++h) out.hosts[h] = block.copy(chunk.hosts[h]);
    }
}

std::vector<int> every_chunk(const ChunkTable &table) {
    std::vector<int> all(table.chunks.size());
    std::iota(all.begin(), all.end(), 0);
    return all;
}

void fill_chunk_map(Block &block, const ChunkTable &table, const std::vector<std::string> &processes,
                    DLI_Chunk_map *map) {
    fill_chunk_list(block, table, every_chunk(table), &map->all);
    map->nprocesses = static_cast<int>(processes.size());
    map->processes = block.take<DLI_Process_chunks>(processes.size());
    for (size_t p = 0; p < processes.size(); ++p) {
        std::vector<int> local = chunks_local_to(table, processes[p]);
        DLI_Process_chunks &out = map->processes[p];
        out.process = block.copy(processes[p]);
        out.count = static_cast<int>(local.size());
        out.chunk_index = block.take<int>(local.size());
        out.local_bytes = 0;
        for (size_t i = 0; i < local.size(); ++i) {
            out.chunk_index[i] = local[i];
            out.local_bytes += table.chunks[static_cast<size_t>(local[i])].length;
        }
    }
}

}  // namespace

DLI_Chunk_list *pack_chunk_list(const ChunkTable &table, const std::vector<int> &which) {
    return Block::pack<DLI_Chunk_list>([&](Block &block) {
        auto *list = block.take<DLI_Chunk_list>(1);
        fill_chunk_list(block, table, which, list);
        return list;
    });
}

DLI_Chunk_map *pack_chunk_map(const ChunkTable &table, const std::vector<std::string> &processes) {
    return Block::pack<DLI_Chunk_map>([&](Block &block) {
        auto *map = block.take<DLI_Chunk_map>(1);
        fill_chunk_map(block, table, processes, map);
        return map;
    });
}

DLI_Directory_map *pack_directory_map(const std::string &directory, const std::vector<ChunkTable> &tables,
                                      const std::vector<std::string> &processes) {
    return Block::pack<DLI_Directory_map>([&](Block &block) {
        auto *map = block.take<DLI_Directory_map>(1);
        map->directory = block.copy(directory);
        map->nfiles = static_cast<int>(tables.size());
        map->files = block.take<DLI_Chunk_map>(tables.size());
        for (size_t f = 0; f < tables.size(); ++f) fill_chunk_map(block, tables[f], processes, &map->files[f]);
        return map;
    });
}

}  // namespace dli
