// store.cpp - blocks, read handles and made buffers.
#include "store.h"

#include "desync.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace desync {

namespace {
const size_t POOL_PER_CAPACITY = 256; // freed buffers kept for reuse, per capacity

// A read handle: a small heap record, so that a handle is never a block's address
// and a stale or forged one is recognised by lookup.
struct Handle {
    Block *block;
};
} // namespace

void write_header(char *base, const Address &a, size_t len)
{
    static_assert(sizeof(int) * (1 + DESYNCH_MAX_DIMS) <= HEADER_LENGTH_AT, "the address fits before the length");
    std::memcpy(base, &a.n, sizeof(int));
    std::memcpy(base + sizeof(int), a.d, sizeof(int) * static_cast<size_t>(a.n));
    uint64_t length = len;
    std::memcpy(base + HEADER_LENGTH_AT, &length, sizeof length);
}

size_t header_length(const char *base)
{
    uint64_t length;
    std::memcpy(&length, base + HEADER_LENGTH_AT, sizeof length);
    return static_cast<size_t>(length);
}

bool read_header(const char *base, size_t size, Address *a)
{
    if (size < BLOCK_HEADER)
        return false;
    std::memcpy(&a->n, base, sizeof(int));
    if (a->n < 2 || a->n > DESYNCH_MAX_DIMS)
        return false;
    std::memcpy(a->d, base + sizeof(int), sizeof(int) * static_cast<size_t>(a->n));
    return true;
}

Store::~Store()
{
    for (auto &entry : handles_)
        delete static_cast<Handle *>(entry.first);
    for (auto &entry : unwritten_)
        std::free(static_cast<char *>(entry.first) - BLOCK_HEADER);
    for (auto &entry : blocks_)
        std::free(entry.second->base());
    for (auto &entry : pool_)
        for (char *base : entry.second)
            std::free(base);
}

char *Store::buffer(size_t capacity)
{
    auto pooled = pool_.find(capacity);
    if (pooled != pool_.end() && !pooled->second.empty()) {
        char *base = pooled->second.back();
        pooled->second.pop_back();
        return base;
    }
    return static_cast<char *>(std::malloc(BLOCK_HEADER + capacity));
}

void Store::recycle(char *base, size_t capacity)
{
    std::vector<char *> &pooled = pool_[capacity];
    if (pooled.size() < POOL_PER_CAPACITY)
        pooled.push_back(base);
    else
        std::free(base);
}

void *Store::make(size_t size)
{
    char *base = buffer(size);
    if (!base)
        return nullptr;
    unwritten_[base + BLOCK_HEADER] = size;
    return base + BLOCK_HEADER;
}

char *Store::receive_buffer(size_t size)
{
    return buffer(size < BLOCK_HEADER ? 0 : size - BLOCK_HEADER);
}

int Store::duplicate(const Block *old, const char *data, size_t len)
{
    if (old->len != len || std::memcmp(old->data, data, len) != 0)
        return DESYNC_ERR_CONFLICT;
    duplicates_++;
    return DESYNC_SUCCESS;
}

Block *Store::add(const Address &addr, char *base, size_t len, size_t capacity)
{
    auto b = std::make_unique<Block>();
    b->addr = addr;
    b->data = base + BLOCK_HEADER;
    b->len = len;
    b->capacity = capacity;
    Block *raw = b.get();
    blocks_.emplace(addr, std::move(b));
    if (resident() > peak_)
        peak_ = resident();
    return raw;
}

int Store::bind(const Address &addr, void *data, size_t len, Block **block)
{
    *block = nullptr;
    auto made = unwritten_.find(data);
    if (made == unwritten_.end() || len > made->second)
        return DESYNC_ERR_BUFFER;
    char *base = static_cast<char *>(data) - BLOCK_HEADER;
    size_t capacity = made->second;
    if (Block *old = find(addr)) {
        int rc = duplicate(old, static_cast<const char *>(data), len);
        if (rc == DESYNC_SUCCESS) {
            unwritten_.erase(made);
            recycle(base, capacity);
        }
        return rc;
    }
    unwritten_.erase(made);
    write_header(base, addr, len);
    *block = add(addr, base, len, capacity);
    return DESYNC_SUCCESS;
}

int Store::adopt(const Address &addr, char *base, size_t len, Block **block)
{
    *block = nullptr;
    if (Block *old = find(addr)) {
        int rc = duplicate(old, base + BLOCK_HEADER, len);
        recycle(base, len);
        return rc;
    }
    *block = add(addr, base, len, len);
    return DESYNC_SUCCESS;
}

Block *Store::find(const Address &addr) const
{
    auto it = blocks_.find(addr);
    return it == blocks_.end() ? nullptr : it->second.get();
}

void *Store::acquire(Block *b)
{
    Handle *h = new (std::nothrow) Handle{b};
    if (!h)
        return nullptr;
    handles_[h] = b;
    b->refs++;
    return h;
}

Block *Store::release(void *handle)
{
    auto it = handles_.find(handle);
    if (it == handles_.end())
        return nullptr;
    Block *b = it->second;
    handles_.erase(it);
    delete static_cast<Handle *>(handle);
    b->refs--;
    return b;
}

void Store::erase(Block *b)
{
    recycle(b->base(), b->capacity);
    Address key = b->addr; // erasing destroys b, and its address with it
    blocks_.erase(key);
}

} // namespace desync
