// long_path.cpp - path resolution in pieces shorter than PATH_MAX.
#include "long_path.h"

#include <cerrno>
#include <climits>

#include <fcntl.h>
#include <unistd.h>

namespace pftw {

namespace {

// Opens, as an O_PATH directory handle, everything of path up to its last piece
// that is shorter than PATH_MAX; *rest is where the remainder starts. Returns
// AT_FDCWD when path is short enough already.
int open_prefix(const std::string &path, size_t *rest)
{
    int dir = AT_FDCWD;
    size_t start = 0;
    while (path.size() - start >= PATH_MAX) {
        size_t cut = path.rfind('/', start + PATH_MAX - 2);
        if (cut == std::string::npos || cut < start) {
            if (dir != AT_FDCWD)
                close(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        std::string piece = cut == start ? "/" : path.substr(start, cut - start);
        int next = openat(dir, piece.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        int saved = errno;
        if (dir != AT_FDCWD)
            close(dir);
        if (next < 0) {
            errno = saved;
            return -1;
        }
        dir = next;
        start = cut + 1;
    }
    *rest = start;
    return dir;
}

void close_prefix(int dir)
{
    if (dir != AT_FDCWD) {
        int saved = errno;
        close(dir);
        errno = saved;
    }
}

}  // namespace

int open_long_path(const std::string &path, int flags)
{
    size_t rest = 0;
    int dir = open_prefix(path, &rest);
    if (dir == -1)
        return -1;
    int fd = openat(dir, path.c_str() + rest, flags);
    close_prefix(dir);
    return fd;
}

int stat_long_path(const std::string &path, size_t name_offset, struct stat *st)
{
    if (name_offset == 0) {
        size_t rest = 0;
        int dir = open_prefix(path, &rest);
        if (dir == -1)
            return -1;
        int result = fstatat(dir, path.c_str() + rest, st, AT_SYMLINK_NOFOLLOW);
        close_prefix(dir);
        return result;
    }
    int dir = open_long_path(path.substr(0, name_offset), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    int result = fstatat(dir, path.c_str() + name_offset, st, AT_SYMLINK_NOFOLLOW);
    close_prefix(dir);
    return result;
}

}  // namespace pftw
