// arena.cpp - a bump allocator over mmap'ed chunks (see arena.h).
#include "arena.h"

#include "syscalls.h"

namespace piox_load {

namespace {

constexpr size_t kChunkBytes = 64 * 1024;

char *chunk_next = nullptr;  // the free rest of the current chunk
size_t chunk_left = 0;

void *map(size_t bytes)
{
    long address = sys::map_anonymous(bytes);
    return sys::mapping_failed(address) ? nullptr : reinterpret_cast<void *>(address);
}

}  // namespace

void *arena_allocate(size_t bytes)
{
    bytes = (bytes + 15) & ~size_t(15);
    if (bytes > kChunkBytes / 4)  // a large block gets its own mapping, wasting no chunk
        return map(bytes);
    if (bytes > chunk_left) {
        chunk_next = static_cast<char *>(map(kChunkBytes));
        chunk_left = chunk_next ? kChunkBytes : 0;
        if (!chunk_next)
            return nullptr;
    }
    void *block = chunk_next;
    chunk_next += bytes;
    chunk_left -= bytes;
    return block;
}

const char *arena_copy(const char *text, size_t length)
{
    char *copy = static_cast<char *>(arena_allocate(length + 1));
    if (copy) {
        __builtin_memcpy(copy, text, length);
        copy[length] = '\0';  // the memory is zeroed, but say it
    }
    return copy;
}

}  // namespace piox_load
