#include "node_view.h"

#include "elf_dynamic.h"

#include <cerrno>
#include <cstdio>
#include <dirent.h>
#include <vector>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace piox_load {

namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's limit (ELOOP past it)

void push_components(std::deque<std::string>& queue, const std::string& path)
{
    // in front of what is left, in order
    std::deque<std::string> parts;
    size_t at = 0;
    while (at <= path.size()) {
        size_t slash = path.find('/', at);
        if (slash == std::string::npos)
            slash = path.size();
        if (slash > at)
            parts.push_back(path.substr(at, slash - at));
        at = slash + 1;
    }
    queue.insert(queue.begin(), parts.begin(), parts.end());
}

int make_directory(const std::string& path, uint32_t mode)
{
    if (mkdir(path.c_str(), (mode & 07777) | 0700) == 0 || errno == EEXIST)
        return 0;
    return errno;
}

int make_symlink(const std::string& path, const std::string& target)
{
    if (symlink(target.c_str(), path.c_str()) == 0 || errno == EEXIST)
        return 0;
    return errno;
}

// Writes `ranges` of `bytes` at their offsets into fd, sized to all of `bytes`.
int write_ranges(int fd, const std::string& bytes, const std::vector<std::pair<uint64_t, uint64_t>>& ranges)
{
    if (ftruncate(fd, static_cast<off_t>(bytes.size())) != 0)
        return errno;
    for (const auto& [start, end] : ranges) {
        for (uint64_t at = start; at < end;) {
            ssize_t n = pwrite(fd, bytes.data() + at, end - at, static_cast<off_t>(at));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return n < 0 ? errno : EIO;
            at += static_cast<uint64_t>(n);
        }
    }
    return 0;
}

// Written under a temporary name, then renamed: a process never sees part of it.
int make_file(const std::string& path, const Item& item, bool strip)
{
    struct stat st;
    if (lstat(path.c_str(), &st) == 0)
        return 0;
    std::string temporary = path + ".piox-tmp." + std::to_string(getpid());
    int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    if (strip)
        ranges = loaded_ranges(item.bytes);
    if (ranges.empty())
        ranges.emplace_back(0, item.bytes.size());
    int error = write_ranges(fd, item.bytes, ranges);
    const timespec times[2] = {{0, UTIME_OMIT},
                               {item.mtime_ns / 1000000000, item.mtime_ns % 1000000000}};
    if (error == 0 && (fchmod(fd, item.mode & 07777) != 0 || futimens(fd, times) != 0))
        error = errno;
    if (close(fd) != 0 && error == 0)
        error = errno;
    if (error == 0 && rename(temporary.c_str(), path.c_str()) != 0)
        error = errno;
    if (error != 0)
        unlink(temporary.c_str());
    return error;
}

}  // namespace

std::string parent_of(const std::string& path)
{
    size_t slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string join(const std::string& directory, const std::string& name)
{
    return directory == "/" ? "/" + name : directory + "/" + name;
}

const Item* NodeView::find(const std::string& path) const
{
    auto it = items_.find(path);
    return it == items_.end() ? nullptr : &it->second;
}

void NodeView::add(Item item)
{
    std::string path = item.path;
    items_.emplace(std::move(path), std::move(item));
}

// One walk for resolve and materialize: `step(physical path, item)` is called for
// the root, each directory and symlink passed, and the final object; a nonzero
// return ends the walk as missing with that errno.
template <typename Step>
Resolution NodeView::walk(const std::string& path, bool follow, Step&& step) const
{
    Resolution r;
    std::deque<std::string> left;
    push_components(left, path);
    std::string at = "/";
    const Item* item = find(at);
    if (item == nullptr)
        return {Resolution::kNeed, at};
    int links = 0;
    while (true) {
        if (!item->is_directory() && !left.empty()) {
            return {Resolution::kMissing, at, nullptr, item->error ? item->error : ENOTDIR};
        }
        if (int error = step(at, *item))
            return {Resolution::kMissing, at, nullptr, error};
        if (left.empty())
            return {Resolution::kDone, at, item};
        std::string name = left.front();
        left.pop_front();
        if (name == ".")
            continue;
        if (name == "..") {
            at = parent_of(at);
            item = find(at);  // an ancestor: passed on the way here, so known
            if (item == nullptr)
                return {Resolution::kNeed, at};
            continue;
        }
        if (item->names.count(name) == 0)
            return {Resolution::kMissing, join(at, name), nullptr, ENOENT};
        std::string next = join(at, name);
        const Item* child = find(next);
        if (child == nullptr)
            return {Resolution::kNeed, next};
        if (child->is_symlink() && !(left.empty() && !follow)) {
            if (++links > kMaxSymlinks)
                return {Resolution::kMissing, next, nullptr, ELOOP};
            if (int error = step(next, *child))
                return {Resolution::kMissing, next, nullptr, error};
            push_components(left, child->target);
            if (!child->target.empty() && child->target[0] == '/')
                at = "/";
            item = find(at);
            if (item == nullptr)
                return {Resolution::kNeed, at};
            continue;
        }
        if (child->error != 0)
            return {Resolution::kMissing, next, nullptr, child->error};
        at = next;
        item = child;
    }
}

int NodeView::make_listing(const std::string& where, const Item& listing) const
{
    std::string partial = where + ".piox-tmp." + std::to_string(getpid());
    if (int error = make_directory(partial, 0755))
        return error;
    for (const auto& [name, type] : listing.names) {
        const std::string entry = partial + "/" + name;
        int made = type == DT_DIR ? mkdir(entry.c_str(), 0755)
                 : type == DT_LNK ? symlink(".", entry.c_str())
                 : mknod(entry.c_str(), S_IFREG | 0644, 0);
        if (made != 0 && errno != EEXIST)
            return errno;
    }
    return rename(partial.c_str(), where.c_str()) == 0 ? 0 : errno;
}

Resolution NodeView::resolve(const std::string& path, bool follow) const
{
    return walk(path, follow, [](const std::string&, const Item&) { return 0; });
}

int NodeView::materialize(const std::string& path, bool follow, bool strip)
{
    std::string key = (follow ? "1" : "0") + path;
    if (materialized_.count(key) != 0)
        return 0;
    // A directory's modification time is the original's once its entries are made:
    // Python's import system, for one, lists a directory again whenever it changes.
    std::vector<std::pair<std::string, int64_t>> directories;
    Resolution r = walk(path, follow, [this, &directories, strip](const std::string& at, const Item& item) {
        std::string mirrored = root_ + (at == "/" ? "" : at);
        if (item.is_directory()) {
            directories.emplace_back(mirrored, item.mtime_ns);
            return make_directory(mirrored, item.mode);
        }
        if (item.is_symlink())  // an absolute target points into the mirror too
            return make_symlink(mirrored, item.target[0] == '/' ? root_ + item.target : item.target);
        if (item.is_regular())
            return make_file(mirrored, item, strip);
        return EINVAL;  // a device or socket: never served
    });
    for (const auto& [mirrored, mtime_ns] : directories) {
        const timespec times[2] = {{0, UTIME_OMIT}, {mtime_ns / 1000000000, mtime_ns % 1000000000}};
        utimensat(AT_FDCWD, mirrored.c_str(), times, 0);
    }
    if (r.state != Resolution::kDone)
        return r.error ? r.error : EAGAIN;
    materialized_.insert(std::move(key));
    return 0;
}

}  // namespace piox_load
