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

// Every block's buffer begins with a header, the block's address, so that the
// buffer is the block's message as it stands: sent and received with no copy.
constexpr size_t BLOCK_HEADER = 64; // (1 + DESYNCH_MAX_DIMS) ints, the length, rounded up
constexpr size_t HEADER_LENGTH_AT = 40; // the data's length, a uint64 (for the checkpoint's records)
void write_header(char *base, const Address &a, size_t len);
bool read_header(const char *base, size_t size, Address *a); // false when malformed
size_t header_length(const char *base);

struct Block {
    Address addr;
    char *data = nullptr; // base + BLOCK_HEADER; the store owns base
    size_t len = 0;
    size_t capacity = 0;  // of the data part (buffers are reused by capacity)
    int refs = 0;         // live read handles
    int pins = 0;         // sends in flight from the buffer
    char *base() const { return data - BLOCK_HEADER; }
    // The runtime's note of the block's forward dependencies (asked once, for the
    // garbage collector and for prefetching).
    std::vector<Address> forward;
    bool forward_known = false;
    // A copy kept for the crash recovery of the process that sent it (NOTES.md 2.6):
    // collected only once a later replica is complete everywhere.
    bool replica = false;
    // This process's block of a checkpointed version: 1 while its write is due or in
    // flight (not collected meanwhile), 2 once written.
    char saved = 0;
};

class Store {
public:
    Store() = default;
    Store(const Store &) = delete;
    Store &operator=(const Store &) = delete;
    ~Store();

    void *make(size_t size); // nullptr when memory runs out
    // A buffer for a received block message of `size` bytes (header included), and
    // its return when the message is not kept.
    char *receive_buffer(size_t size);
    void recycle(char *base, size_t capacity);
    // Binds addr to a buffer from make: DESYNC_SUCCESS (*block set, the store owns the
    // buffer), DESYNC_ERR_BUFFER, or for an address already bound DESYNC_SUCCESS with
    // *block null if the bytes are the same (the buffer is freed), DESYNC_ERR_CONFLICT
    // if not.
    int bind(const Address &addr, void *data, size_t len, Block **block);
    // A block received from another process, in a buffer from receive_buffer: adopted
    // (or recycled); the same duplicate rules.
    int adopt(const Address &addr, char *base, size_t len, Block **block);

    Block *find(const Address &addr) const;
    void *acquire(Block *b);                // a read handle
    Block *release(void *handle);           // nullptr for a handle that is not live
    void erase(Block *b);                   // the garbage collector's; b must have no refs

    long long resident() const { return static_cast<long long>(blocks_.size()); }
    long long peak() const { return peak_; }
    long long duplicates() const { return duplicates_; }
    template <class F> void for_each(F f) const
    {
        for (const auto &entry : blocks_)
            f(entry.second.get());
    }

private:
    int duplicate(const Block *old, const char *data, size_t len); // counts the same bytes
    Block *add(const Address &addr, char *base, size_t len, size_t capacity);
    char *buffer(size_t capacity); // from the pool, or new

    std::unordered_map<Address, std::unique_ptr<Block>, AddressHash> blocks_;
    std::unordered_map<void *, size_t> unwritten_;       // from make (data pointers): capacity
    std::unordered_map<size_t, std::vector<char *>> pool_; // freed buffers by capacity
    std::unordered_map<void *, Block *> handles_;
    long long peak_ = 0;
    long long duplicates_ = 0; // identical bytes bound again
};

} // namespace desync
