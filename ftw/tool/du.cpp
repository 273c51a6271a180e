// du.cpp - per-child byte totals, their records and their merge.
#include "du.h"

#include <cstring>

namespace pftw_tool {
namespace {

constexpr size_t total_bytes = 8;

void put_le64(std::string &out, uint64_t value) {
    for (size_t i = 0; i < total_bytes; ++i)
        out.push_back(char((value >> (8 * i)) & 0xFF));
}

uint64_t get_le64(const char *p) {
    uint64_t value = 0;
    for (size_t i = 0; i < total_bytes; ++i)
        value |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
    return value;
}

}  // namespace

void DuTally::add(std::string_view child, uint64_t bytes) {
    if (!last_total_ || child != last_child_) {
        last_child_.assign(child);
        // References to unordered_map values stay valid across rehashing.
        last_total_ = &totals_[last_child_];
    }
    *last_total_ += bytes;
}

void DuTally::serialize(std::string &out) const {
    for (const auto &[child, total] : totals_) {
        out.append(child);
        out.push_back('\0');  // names cannot contain NUL
        put_le64(out, total);
    }
}

void DuTally::clear() {
    totals_.clear();
    last_child_.clear();
    last_total_ = nullptr;
}

void DuMerge::feed(const char *data, size_t size) {
    pending_.append(data, size);
    size_t at = 0;
    for (;;) {
        const size_t nul = pending_.find('\0', at);
        if (nul == std::string::npos || pending_.size() - (nul + 1) < total_bytes)
            break;
        totals_[pending_.substr(at, nul - at)] += get_le64(pending_.data() + nul + 1);
        at = nul + 1 + total_bytes;
    }
    pending_.erase(0, at);
}

bool DuMerge::end_of_stream() {
    const bool complete = pending_.empty();
    pending_.clear();
    return complete;
}

}  // namespace pftw_tool
