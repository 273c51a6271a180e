// text.h - C strings and fixed-capacity text buffers, for a client without a C library.
//
// Text<N> never allocates: a path, a request payload or a message is built in place,
// and an append that does not fit marks the text overflowed instead of truncating it
// silently (a truncated path would name another file).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace piox_load {

inline size_t length_of(const char *text)
{
    size_t n = 0;
    while (text[n])
        ++n;
    return n;
}

inline bool starts_with(const char *text, const char *prefix)
{
    for (; *prefix; ++text, ++prefix)
        if (*text != *prefix)
            return false;
    return true;
}

inline bool same(const char *a, const char *b)
{
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}

inline bool contains(const char *text, char c)
{
    for (; *text; ++text)
        if (*text == c)
            return true;
    return false;
}

template <size_t Capacity>
class Text {
public:
    void clear()
    {
        size_ = 0;
        overflowed_ = false;
        data_[0] = '\0';
    }
    Text &append(const char *bytes, size_t count)
    {
        if (overflowed_ || count >= Capacity - size_) {  // keep room for the final NUL
            overflowed_ = true;
            return *this;
        }
        for (size_t i = 0; i < count; ++i)
            data_[size_ + i] = bytes[i];
        size_ += count;
        data_[size_] = '\0';
        return *this;
    }
    Text &append(const char *text) { return append(text, length_of(text)); }
    Text &append(char c) { return append(&c, 1); }
    // text and its NUL: one string of a request payload (protocol.h).
    Text &append_field(const char *text) { return append(text, length_of(text) + 1); }
    Text &append_decimal(uint64_t value)
    {
        char digits[20];
        size_t count = 0;
        do {
            digits[count++] = char('0' + value % 10);
            value /= 10;
        } while (value);
        while (count)
            append(digits[--count]);
        return *this;
    }
    Text &append_hex(uint64_t value)
    {
        append("0x");
        for (int shift = 60; shift >= 0; shift -= 4)
            if (value >> shift || shift == 0)
                append("0123456789abcdef"[(value >> shift) & 0xf]);
        return *this;
    }
    // Cuts the text back to `count` bytes (count <= size()).
    void truncate(size_t count)
    {
        size_ = count;
        data_[size_] = '\0';
    }

    const char *c_str() const { return data_; }
    size_t size() const { return size_; }
    bool overflowed() const { return overflowed_; }
    static constexpr size_t capacity() { return Capacity; }

private:
    // Initialised so that a global Text is constant-initialised: the client runs no
    // constructors (it has no C runtime to call them).
    char data_[Capacity] = {};
    size_t size_ = 0;
    bool overflowed_ = false;
};

// Enough for a path (PATH_MAX is 4096) and a name beside it.
constexpr size_t kPathCapacity = 4096 + 256;
using PathText = Text<kPathCapacity>;
using MessageText = Text<1024>;
using PayloadText = Text<2 * kPathCapacity>;  // a name and its requester's path

}  // namespace piox_load
