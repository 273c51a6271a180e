// Probing whether fcntl locks work on a file system: see include/piox_fsprobe.h.
#include "piox_fsprobe.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace {

std::string directory_of(const std::string &path)
{
    size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool lock_refused(int error)
{
    return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL;
}

piox_locks_answer try_lock(int fd, short type)
{
    struct flock lock = {};
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    if (fcntl(fd, F_SETLK, &lock) == 0) {
        lock.l_type = F_UNLCK;
        fcntl(fd, F_SETLK, &lock);
        return PIOX_LOCKS_WORK;
    }
    // EAGAIN/EACCES: somebody else holds the byte, so locks do work.
    return lock_refused(errno) ? PIOX_LOCKS_FAIL : PIOX_LOCKS_WORK;
}

piox_locks_answer probe_directory(const std::string &directory, const std::string &path)
{
    char name[64];
    std::snprintf(name, sizeof name, "/.piox-lockprobe.%ld", static_cast<long>(getpid()));
    const std::string probe = directory + name;
    int fd = open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
        unlink(probe.c_str());  // at once: nothing is left behind if we die
        piox_locks_answer answer = try_lock(fd, F_WRLCK);
        close(fd);
        return answer;
    }
    fd = open(path.c_str(), O_RDONLY);  // a read-only directory: the file itself
    if (fd < 0)
        return PIOX_LOCKS_UNKNOWN;
    piox_locks_answer answer = try_lock(fd, F_RDLCK);
    close(fd);
    return answer;
}

}  // namespace

extern "C" const char *piox_path_of(const char *name)
{
    // ROMIO accepts "<fs>:" before a path to force its driver (never a single letter).
    const char *colon = std::strchr(name, ':');
    if (colon == nullptr || colon - name < 2)
        return name;
    const char *slash = std::strchr(name, '/');
    return slash != nullptr && slash < colon ? name : colon + 1;
}

extern "C" piox_locks_answer piox_probe_fcntl_locks(const char *name)
{
    static std::mutex mutex;
    static std::map<std::string, piox_locks_answer> by_directory;
    if (name == nullptr)
        return PIOX_LOCKS_UNKNOWN;
    const std::string path = piox_path_of(name);
    const std::string directory = directory_of(path);
    std::lock_guard<std::mutex> guard(mutex);
    auto found = by_directory.find(directory);
    if (found != by_directory.end())
        return found->second;
    piox_locks_answer answer = probe_directory(directory, path);
    if (answer != PIOX_LOCKS_UNKNOWN)
        by_directory[directory] = answer;
    return answer;
}
