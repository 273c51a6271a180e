// store.h - the blocks a process holds: their bytes, the application's read handles
// (references) on them, and the buffers desynchBlockMake handed out and not yet
// written. Knows nothing of MPI or of who owns what.
#pragma once

#include "address.h"

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace desync {

struct Block {
    Address addr;
    char *data = nullptr; // malloc'd; the store frees it
    size_t len = 0;
    int refs = 0;         // live read handles
    // The runtime's note of the block's forward dependencies (asked once, for the
    // garbage collector and for prefetching).
    std::vector<Address> forward;
    bool forward_known = false;
};

class Store {
public:
    Store() = default;
    Store(const Store &) = delete;
    Store &operator=(const Store &) = delete;
    ~Store();

    void *make(size_t size); // nullptr when memory runs out
    // Binds addr to a buffer from make: DESYNC_SUCCESS (*block set, the store owns the
    // buffer), DESYNC_ERR_BUFFER, or for an address already bound DESYNC_SUCCESS with
    // *block null if the bytes are the same (the buffer is freed), DESYNC_ERR_CONFLICT
    // if not.
    int bind(const Address &addr, void *data, size_t len, Block **block);
    // A block received from another process: copied in; same duplicate rules.
    int insert(const Address &addr, const char *data, size_t len, Block **block);

    Block *find(const Address &addr) const;
    void *acquire(Block *b);                // a read handle
    Block *release(void *handle);           // nullptr for a handle that is not live
    void erase(Block *b);                   // the garbage collector's; b must have no refs

    long long resident() const { return static_cast<long long>(blocks_.size()); }
    long long peak() const { return peak_; }
    template <class F> void for_each(F f) const
    {
        for (const auto &entry : blocks_)
            f(entry.second.get());
    }

private:
    int duplicate(const Block *old, const char *data, size_t len) const;
    Block *add(const Address &addr, char *data, size_t len);

    std::unordered_map<Address, std::unique_ptr<Block>, AddressHash> blocks_;
    std::unordered_map<void *, size_t> unwritten_;       // from make: capacity
    std::unordered_map<void *, Block *> handles_;
    long long peak_ = 0;
};

} // namespace desync
