// environment.cpp - reading /proc/self/environ whole (see environment.h).
#include "environment.h"

#include "syscalls.h"
#include "text.h"

namespace piox_load {

namespace {

constexpr size_t kFirstMappingBytes = 64 * 1024;

// Reads fd to its end into an anonymous mapping that doubles when full (an
// environment may be megabytes); the mapping is never unmapped.
bool read_whole(int fd, char **data, size_t *size)
{
    size_t capacity = kFirstMappingBytes;
    long address = sys::map_anonymous(capacity);
    if (sys::mapping_failed(address))
        return false;
    size_t used = 0;
    for (;;) {
        if (used == capacity) {
            long grown = sys::remap(reinterpret_cast<void *>(address), capacity, 2 * capacity);
            if (sys::mapping_failed(grown))
                return false;
            address = grown;
            capacity *= 2;
        }
        long got = sys::read(fd, reinterpret_cast<char *>(address) + used, capacity - used);
        if (got == -sys::kEINTR)
            continue;
        if (got < 0)
            return false;
        if (got == 0)
            break;
        used += size_t(got);
    }
    *data = reinterpret_cast<char *>(address);
    *size = used;
    return true;
}

}  // namespace

bool Environment::read()
{
    long fd = sys::open_read_only("/proc/self/environ");
    if (fd < 0)
        return false;
    char *data = nullptr;
    size_t size = 0;
    bool done = read_whole(int(fd), &data, &size);
    sys::close(int(fd));
    if (done) {
        entries_ = data;
        size_ = size;
    }
    return done;
}

const char *Environment::find(const char *name) const
{
    if (array_)
        return value_in(array_, name);
    size_t name_length = length_of(name);
    for (size_t at = 0; at < size_;) {
        const char *entry = entries_ + at;
        if (starts_with(entry, name) && entry[name_length] == '=')
            return entry + name_length + 1;
        // Each entry ends with a NUL; a last one without it (not seen) ends at size_,
        // where the mapping's zeroes still terminate it.
        while (at < size_ && entries_[at])
            ++at;
        ++at;
    }
    return nullptr;
}

const char *value_in(char *const *environment, const char *name)
{
    size_t length = length_of(name);
    for (char *const *entry = environment; entry && *entry; ++entry)  // none after clearenv()
        if (starts_with(*entry, name) && (*entry)[length] == '=')
            return *entry + length + 1;
    return nullptr;
}

}  // namespace piox_load
