// address.h - a block address as a value: the file, the version, the coordinates.
// Fixed storage (DESYNCH_MAX_DIMS) so that addresses hash and compare without the
// heap; converted to and from the paper's blockaddr at the API's edge.
#pragma once

#include "desync.h"

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>

namespace desync {

struct Address {
    int n = 0;                    // numdims: 2 + the file's dimensions
    int d[DESYNCH_MAX_DIMS] = {}; // d[0] file, d[1] version, d[2..] coordinates

    int file() const { return d[0]; }
    int version() const { return d[1]; }
    Address at_version(int v) const
    {
        Address a = *this;
        a.d[1] = v;
        return a;
    }
    bool operator==(const Address &o) const
    {
        return n == o.n && std::memcmp(d, o.d, sizeof(int) * static_cast<size_t>(n)) == 0;
    }
    bool operator!=(const Address &o) const { return !(*this == o); }

    // False when numdims is out of range (the caller reports DESYNC_ERR_ADDRESS).
    static bool from(const blockaddr *b, Address *out);
    void to(blockaddr *b) const; // b->dims must have room for n integers
    std::string text() const;    // "(0, 12, 3, 4)" for messages
};

struct AddressHash {
    size_t operator()(const Address &a) const
    {
        size_t h = static_cast<size_t>(a.n);
        for (int i = 0; i < a.n; i++)
            h = h * 1000003u ^ static_cast<size_t>(static_cast<unsigned>(a.d[i]));
        return h;
    }
};

} // namespace desync
