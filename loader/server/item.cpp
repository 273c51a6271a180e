#include "item.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace piox_load {

bool Item::is_directory() const { return error == 0 && S_ISDIR(mode); }
bool Item::is_symlink() const { return error == 0 && S_ISLNK(mode); }
bool Item::is_regular() const { return error == 0 && S_ISREG(mode); }

namespace {

int read_target(const std::string& path, std::string& target)
{
    char buffer[4096];
    ssize_t n = readlink(path.c_str(), buffer, sizeof buffer);
    if (n < 0)
        return errno;
    if (static_cast<size_t>(n) == sizeof buffer)
        return ENAMETOOLONG;
    target.assign(buffer, static_cast<size_t>(n));
    return 0;
}

int read_names(const std::string& path, std::unordered_map<std::string, unsigned char>& names)
{
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr)
        return errno;
    errno = 0;
    while (dirent* entry = readdir(dir)) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            names.emplace(entry->d_name, entry->d_type);
        errno = 0;
    }
    int error = errno;
    closedir(dir);
    return error;
}

int read_bytes(const std::string& path, std::string& bytes)
{
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    int error = fstat(fd, &st) == 0 ? 0 : errno;
    if (error == 0)
        bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (error == 0 && done < bytes.size()) {
        ssize_t n = read(fd, &bytes[done], bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? errno : EIO;  // the file shrank while we read it
            break;
        }
        done += static_cast<size_t>(n);
    }
    close(fd);
    return error;
}

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

Item read_item(const std::string& path)
{
    Item item;
    item.path = path;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
        item.error = errno;
        return item;
    }
    item.mode = st.st_mode;
    item.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (S_ISLNK(st.st_mode))
        item.error = read_target(path, item.target);
    else if (S_ISDIR(st.st_mode))
        item.error = read_names(path, item.names);
    else if (S_ISREG(st.st_mode))
        item.error = read_bytes(path, item.bytes);
    return item;
}

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
    return r.text(item.bytes) && r.finished();
}

}  // namespace piox_load
