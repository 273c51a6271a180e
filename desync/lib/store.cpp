// store.cpp - blocks, read handles and made buffers.
#include "store.h"

#include "desync.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace desync {

namespace {
// A read handle: a small heap record, so that a handle is never a block's address
// and a stale or forged one is recognised by lookup.
struct Handle {
    Block *block;
};
} // namespace

Store::~Store()
{
    for (auto &entry : handles_)
        delete static_cast<Handle *>(entry.first);
    for (auto &entry : unwritten_)
        std::free(entry.first);
    for (auto &entry : blocks_)
        std::free(entry.second->data);
}

void *Store::make(size_t size)
{
    void *p = std::malloc(size ? size : 1);
    if (p)
        unwritten_[p] = size;
    return p;
}

int Store::duplicate(const Block *old, const char *data, size_t len) const
{
    return old->len == len && std::memcmp(old->data, data, len) == 0 ? DESYNC_SUCCESS : DESYNC_ERR_CONFLICT;
}

Block *Store::add(const Address &addr, char *data, size_t len)
{
    auto b = std::make_unique<Block>();
    b->addr = addr;
    b->data = data;
    b->len = len;
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
    if (Block *old = find(addr)) {
        int rc = duplicate(old, static_cast<const char *>(data), len);
        if (rc == DESYNC_SUCCESS) {
            unwritten_.erase(made);
            std::free(data);
        }
        return rc;
    }
    unwritten_.erase(made);
    *block = add(addr, static_cast<char *>(data), len);
    return DESYNC_SUCCESS;
}

int Store::insert(const Address &addr, const char *data, size_t len, Block **block)
{
    *block = nullptr;
    if (Block *old = find(addr))
        return duplicate(old, data, len);
    char *copy = static_cast<char *>(std::malloc(len ? len : 1));
    if (!copy)
        return DESYNC_ERR_NOMEM;
    std::memcpy(copy, data, len);
    *block = add(addr, copy, len);
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
    std::free(b->data);
    Address key = b->addr; // erasing destroys b, and its address with it
    blocks_.erase(key);
}

} // namespace desync
