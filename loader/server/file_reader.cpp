#include "file_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "elf_dynamic.h"
#include "node_view.h"

namespace piox_load {

namespace {

int read_target(int handle, std::string& target)
{
    char buffer[4096];
    ssize_t n = readlinkat(handle, "", buffer, sizeof buffer);
    if (n < 0)
        return errno;
    if (static_cast<size_t>(n) == sizeof buffer)
        return ENAMETOOLONG;
    target.assign(buffer, static_cast<size_t>(n));
    return 0;
}

int read_names(int handle, std::unordered_map<std::string, unsigned char>& names)
{
    int fd = openat(handle, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : fdopendir(fd);
    if (dir == nullptr) {
        int error = errno;
        if (fd >= 0)
            close(fd);
        return error;
    }
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

// The attributes the kernel holds for `handle`: those its lookup brought back, or what
// a later read told it. AT_STATX_DONT_SYNC lets a network or FUSE file system answer
// from them instead of asking its server again (one operation per item fewer); others
// answer as fstat does.
int attributes(int handle, struct stat& st)
{
    struct statx sx;
    if (statx(handle, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_MTIME,
              &sx) != 0)
        return errno == ENOSYS ? (fstat(handle, &st) == 0 ? 0 : errno) : errno;
    st = {};
    st.st_mode = sx.stx_mode;
    st.st_size = static_cast<off_t>(sx.stx_size);
    st.st_mtim.tv_sec = sx.stx_mtime.tv_sec;
    st.st_mtim.tv_nsec = sx.stx_mtime.tv_nsec;
    return 0;
}

// Copies the first `size` bytes of `fd` into `bytes` through a mapping, and returns
// how many it copied (0 when the file cannot be mapped). A read() on FUSE asks the
// file system for the file's attributes first (libfuse's default, auto_inval_data,
// revalidates the size at every read), so read() costs two requests and a mapping's
// page faults one. The copy goes through process_vm_readv, not memcpy: a page wholly
// past a file that shrank since the lookup makes it stop short instead of raising
// SIGBUS.
size_t copy_mapped(int fd, size_t size, std::string& bytes)
{
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED)
        return 0;
    madvise(mapped, size, MADV_SEQUENTIAL);
    size_t done = 0;
    while (done < size) {
        iovec to = {&bytes[done], size - done};
        iovec from = {static_cast<char*>(mapped) + done, size - done};
        ssize_t n = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
        if (n <= 0)
            break;
        done += static_cast<size_t>(n);
    }
    munmap(mapped, size);
    // A mapped page past the end reads as zeros: if the file shrank since the lookup
    // (the fault's read told the kernel its new size), what was copied past the new
    // end is not the file's, even when the copy did not stop short.
    struct stat now;
    if (attributes(fd, now) != 0)
        return 0;
    return std::min(done, static_cast<size_t>(now.st_size));
}

std::string name_of(const std::string& path)
{
    return path.substr(path.rfind('/') + 1);
}

// The path that names what an O_PATH handle holds, for the calls that take no
// descriptor of that kind (open, getxattr).
std::string handle_path(int handle)
{
    return "/proc/self/fd/" + std::to_string(handle);
}

// Whether the file behind the O_PATH handle has a security.capability attribute.
bool has_file_capabilities(int handle)
{
    return getxattr(handle_path(handle).c_str(), "security.capability", nullptr, 0) >= 0;
}

}  // namespace

// Reopened through /proc/self/fd: the file system sees an open, not another lookup.
// Exactly the size the lookup reported is copied, through a mapping (copy_mapped);
// what a mapping could not give is pread() from where it stopped, which also reports
// the error of a page that cannot be read. The item is the file as it was when
// looked up (README: coherence); an empty file is not opened at all.
int read_regular_file(int handle, size_t size, std::string& bytes)
{
    bytes.clear();
    if (size == 0)
        return 0;
    int fd = open(handle_path(handle).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    bytes.resize(size);
    size_t done = copy_mapped(fd, size, bytes);
    int error = 0;
    while (done < size) {
        ssize_t n = pread(fd, &bytes[done], size - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            error = errno;
        if (n <= 0)
            break;  // it shrank since the lookup: what is left
        done += static_cast<size_t>(n);
    }
    bytes.resize(done);
    close(fd);
    return error;
}

FileReader::~FileReader()
{
    for (auto& [path, handle] : handles_)
        close(handle);
}

void FileReader::keep(const std::string& path, int handle)
{
    handles_.emplace_front(path, handle);
    by_path_[path] = handles_.begin();
    if (handles_.size() > kHandles) {
        close(handles_.back().second);
        by_path_.erase(handles_.back().first);
        handles_.pop_back();
    }
}

int FileReader::directory_handle(const std::string& path)
{
    auto known = by_path_.find(path);
    if (known != by_path_.end()) {
        handles_.splice(handles_.begin(), handles_, known->second);  // most recent first
        return known->second->second;
    }
    int handle = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (handle >= 0)
        keep(path, handle);
    return handle;
}

Item FileReader::read(const std::string& path)
{
    Item item;
    item.path = path;
    // /proc answers for the process that reads it: /proc/self/exe here is this
    // server's program, /proc/self/fd/3 one of its descriptors. Never served, so the
    // asker reads its own (the server refuses what it cannot read).
    if (path == "/proc" || path.compare(0, 6, "/proc/") == 0) {
        item.error = EACCES;
        return item;
    }
    int handle = -1;
    if (path == "/") {
        handle = open("/", O_PATH | O_CLOEXEC);
    } else {
        int parent = directory_handle(parent_of(path));
        handle = parent < 0 ? -1 : openat(parent, name_of(path).c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    }
    struct stat st;
    int error = handle < 0 ? errno : attributes(handle, st);
    if (error != 0) {
        item.error = error;
        if (handle >= 0)
            close(handle);
        return item;
    }
    item.mode = st.st_mode;
    item.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (S_ISLNK(st.st_mode))
        item.error = read_target(handle, item.target);
    else if (S_ISDIR(st.st_mode))
        item.error = read_names(handle, item.names);
    else if (S_ISREG(st.st_mode))
        item.error = read_regular_file(handle, static_cast<size_t>(st.st_size), item.bytes);
    // Only a program may carry file capabilities that matter: asked of executables
    // alone, one request each, not of every library.
    if (S_ISREG(st.st_mode) && item.error == 0 && (st.st_mode & 0111) && has_interpreter(item.bytes))
        item.capabilities = has_file_capabilities(handle);
    if (S_ISDIR(st.st_mode) && by_path_.count(path) == 0)
        keep(path, handle);  // its children are read through it
    else
        close(handle);
    return item;
}

}  // namespace piox_load
