#include "item.h"

#include <cstring>
#include <sys/stat.h>

namespace piox_load {

bool Item::is_directory() const { return error == 0 && S_ISDIR(mode); }
bool Item::is_symlink() const { return error == 0 && S_ISLNK(mode); }
bool Item::is_regular() const { return error == 0 && S_ISREG(mode); }

namespace {

// The encoding: fixed-width integers in the machine's order (every server of a job
// runs the same binary) and strings as a length and bytes.
class Writer {
  public:
    void number(uint64_t value) { out_.append(reinterpret_cast<const char*>(&value), sizeof value); }
    void text(const std::string& s) { number(s.size()); out_ += s; }
    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

class Reader {
  public:
    Reader(const char* data, size_t size) : at_(data), end_(data + size) {}
    bool number(uint64_t& value)
    {
        if (static_cast<size_t>(end_ - at_) < sizeof value)
            return false;
        memcpy(&value, at_, sizeof value);
        at_ += sizeof value;
        return true;
    }
    bool text(std::string& s)
    {
        uint64_t n = 0;
        if (!number(n) || n > static_cast<size_t>(end_ - at_))
            return false;
        s.assign(at_, n);
        at_ += n;
        return true;
    }
    bool finished() const { return at_ == end_; }

  private:
    const char* at_;
    const char* end_;
};

}  // namespace

std::string encode(const Item& item)
{
    Writer w;
    w.text(item.path);
    w.number(static_cast<uint64_t>(item.error));
    w.number(item.mode);
    w.number(static_cast<uint64_t>(item.mtime_ns));
    w.text(item.target);
    w.number(item.names.size());
    for (const auto& [name, type] : item.names) {
        w.text(name);
        w.number(type);
    }
    w.text(item.bytes);
    w.number(item.capabilities ? 1 : 0);
    return w.take();
}

bool decode(const char* data, size_t size, Item& item)
{
    Reader r(data, size);
    uint64_t error = 0, mode = 0, mtime = 0, count = 0;
    if (!r.text(item.path) || !r.number(error) || !r.number(mode) || !r.number(mtime) ||
        !r.text(item.target) || !r.number(count))
        return false;
    item.error = static_cast<int>(error);
    item.mode = static_cast<uint32_t>(mode);
    item.mtime_ns = static_cast<int64_t>(mtime);
    for (uint64_t i = 0; i < count; i++) {
        std::string name;
        uint64_t type = 0;
        if (!r.text(name) || !r.number(type))
            return false;
        item.names.emplace(std::move(name), static_cast<unsigned char>(type));
    }
    uint64_t capabilities = 0;
    if (!r.text(item.bytes) || !r.number(capabilities) || capabilities > 1)
        return false;
    item.capabilities = capabilities == 1;
    return r.finished();
}

}  // namespace piox_load
