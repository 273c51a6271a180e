// files.cpp - the wrappers of files.h and their binding.
#include "files.h"

#include "paths.h"
#include "session.h"
#include "syscalls.h"

#include <fcntl.h>
#include <string.h>
#include <stdarg.h>

namespace piox_load {

extern Session session;  // audit.cpp's

namespace {

using OpenFunction = int (*)(const char *, int, ...);
using OpenAtFunction = int (*)(int, const char *, int, ...);
using FortifiedOpenFunction = int (*)(const char *, int);
using StatFunction = int (*)(const char *, void *);
using StatAtFunction = int (*)(int, const char *, void *, int);
using AccessFunction = int (*)(const char *, int);
using MkdirFunction = int (*)(const char *, unsigned);
using OpendirFunction = void *(*)(const char *);
using ReadlinkFunction = long (*)(const char *, char *, size_t);
using ReadlinkAtFunction = long (*)(int, const char *, char *, size_t);
using RealpathFunction = char *(*)(const char *, char *);
using FortifiedRealpathFunction = char *(*)(const char *, char *, size_t);
using FopenFunction = void *(*)(const char *, const char *);

// libc's own functions, as the loader bound them before we stood in between.
struct Originals {
    OpenFunction open64;
    OpenAtFunction openat64;
    FortifiedOpenFunction open64_2;
    StatFunction stat64;
    StatFunction lstat64;
    StatAtFunction fstatat64;
    AccessFunction access;
    MkdirFunction mkdir;
    OpendirFunction opendir;
    ReadlinkFunction readlink;
    ReadlinkAtFunction readlinkat;
    RealpathFunction realpath;
    FortifiedRealpathFunction realpath_chk;
    FopenFunction fopen64;
} originals;

// Under one of the ':'-separated prefixes, as a whole path component.
bool under_prefix(const char *path)
{
    const char *prefixes = session.settings().python_prefixes;
    while (*prefixes) {
        const char *end = prefixes;
        while (*end && *end != ':')
            ++end;
        size_t n = size_t(end - prefixes);
        bool match = n > 0;
        for (size_t i = 0; match && i < n; ++i)
            match = path[i] == prefixes[i];
        if (match && (path[n] == '/' || path[n] == '\0' || prefixes[n - 1] == '/'))
            return true;
        prefixes = *end ? end + 1 : end;
    }
    return false;
}

// Whether `path` lies under a prefix, while the session serves: its absolute form is
// then in *absolute.
bool served(const char *path, PathText *absolute)
{
    return path && session.active() && *session.settings().python_prefixes &&
           append_absolute(path, absolute) && !absolute->overflowed() && under_prefix(absolute->c_str());
}

bool is_served(const char *path)
{
    PathText absolute;
    return served(path, &absolute);
}

// What libc is given for `path`, after the server's answer: the node-local path it
// named (in `found`), the never-existing path, or `path` itself.
const char *answered(Answer answer, const PathText &found, const char *path)
{
    switch (answer) {
    case Answer::kFound:
        return found.c_str();
    case Answer::kMissing:
        return session.settings().never_existing;
    case Answer::kPassThrough:
        break;
    }
    return path;
}

// Whether the mirror already holds `absolute` (into *mirror): what the server would
// answer for it, since the mirror holds only what the server made, each file whole
// (written aside, then renamed). The node's processes ask it once, the first to need
// it; the others find it here without a round trip. A path the mirror lacks, or that
// leads through a symlink to what it lacks, is the server's to answer.
bool already_mirrored(const PathText &absolute, bool follow, PathText *mirror)
{
    mirror->clear();
    mirror->append(session.settings().mirror_root).append(absolute.c_str());
    return !mirror->overflowed() && sys::exists(mirror->c_str(), follow) == 0;
}

// The path libc should be given instead of `path` to open or stat it: the mirror's
// copy (in *scratch), the node-local never-existing path, or `path` itself.
const char *routed(const char *path, bool follow, PathText *scratch)
{
    PathText absolute;
    if (!served(path, &absolute))
        return path;
    if (already_mirrored(absolute, follow, scratch))
        return scratch->c_str();
    return answered(session.map(absolute.c_str(), follow, scratch), *scratch, path);
}

bool reads_only(int flags)
{
    return (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC | O_TMPFILE));
}

// Nothing is created under the prefixes: an exclusive create or a mkdir (Python
// writing a .pyc beside its source) is given the mirror's root, which exists, and
// fails with EEXIST without touching the file system. Other writes are the
// application's.
const char *routed_open(const char *path, int flags, PathText *scratch)
{
    if (reads_only(flags))
        return routed(path, !(flags & O_NOFOLLOW), scratch);
    bool exclusive = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
    return exclusive && is_served(path) ? session.settings().mirror_root : path;
}

int mode_argument(int flags, va_list arguments)
{
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(arguments, int) : 0;
}

int open64_wrapper(const char *path, int flags, ...)
{
    va_list arguments;
    va_start(arguments, flags);
    int mode = mode_argument(flags, arguments);
    va_end(arguments);
    PathText scratch;
    return originals.open64(routed_open(path, flags, &scratch), flags, mode);
}

int openat64_wrapper(int dir, const char *path, int flags, ...)
{
    va_list arguments;
    va_start(arguments, flags);
    int mode = mode_argument(flags, arguments);
    va_end(arguments);
    PathText scratch;
    bool from_cwd = dir == AT_FDCWD || (path && path[0] == '/');
    return originals.openat64(dir, from_cwd ? routed_open(path, flags, &scratch) : path, flags, mode);
}

int open64_2_wrapper(const char *path, int flags)
{
    PathText scratch;
    return originals.open64_2(routed_open(path, flags, &scratch), flags);
}

int stat64_wrapper(const char *path, void *result)
{
    PathText scratch;
    return originals.stat64(routed(path, true, &scratch), result);
}

int lstat64_wrapper(const char *path, void *result)
{
    PathText scratch;
    return originals.lstat64(routed(path, false, &scratch), result);
}

int fstatat64_wrapper(int dir, const char *path, void *result, int flags)
{
    PathText scratch;
    bool from_cwd = (dir == AT_FDCWD || (path && path[0] == '/')) && !(flags & AT_EMPTY_PATH);
    return originals.fstatat64(dir, from_cwd ? routed(path, !(flags & AT_SYMLINK_NOFOLLOW), &scratch) : path,
                               result, flags);
}

// Existence and reading only: the copy's write permission is not the original's.
int access_wrapper(const char *path, int mode)
{
    PathText scratch;
    bool existence_or_read = (mode & ~R_OK) == 0;
    return originals.access(existence_or_read ? routed(path, true, &scratch) : path, mode);
}

// A listing comes from a node-local directory of the original's names and types.
void *opendir_wrapper(const char *path)
{
    PathText absolute, listing;
    if (!served(path, &absolute))
        return originals.opendir(path);
    return originals.opendir(answered(session.list(absolute.c_str(), &listing), listing, path));
}

int mkdir_wrapper(const char *path, unsigned mode)
{
    return originals.mkdir(is_served(path) ? session.settings().mirror_root : path, mode);
}

// "/proc/<pid>": this process's directory under /proc, as a path names it.
PathText own_proc_directory()
{
    PathText directory;
    directory.append("/proc/").append_decimal(uint64_t(sys::getpid()));
    return directory;
}

// Whether libc's answer for `path` (given to it as `route`) is told as the
// original's: `path` was routed to the mirror, or it is /proc/self/exe in a process
// started from the node's copy of its executable (piox-load-exec).
bool told_as_original(const char *path, const char *route)
{
    if (route != path)
        return true;
    if (!path || !session.settings().executable_is_copy || !starts_with(path, "/proc/"))
        return false;
    PathText own = own_proc_directory();  // /proc/<pid>/exe, as Python's os.path.realpath reaches it
    own.append("/exe");
    return same(path, "/proc/self/exe") || same(path, "/proc/thread-self/exe") || same(path, own.c_str());
}

// Whether readlinkat(dir, path) reads this process's executable link, in a process
// started from the node's copy: `path` is "exe" and `dir` is this process's (or one
// of its threads') /proc directory.
bool own_executable_link(int dir, const char *path)
{
    if (!path || !session.settings().executable_is_copy || !same(path, "exe"))
        return false;
    PathText link, own = own_proc_directory();
    link.append("/proc/self/fd/").append_decimal(uint64_t(dir < 0 ? 0 : dir));
    char target[128];
    long got = dir < 0 ? -1 : sys::readlink(link.c_str(), target, sizeof target - 1);
    if (got <= 0)
        return false;
    target[got] = '\0';
    return same(target, own.c_str()) || (starts_with(target, own.c_str()) && starts_with(target + own.size(), "/task/"));
}

// A symlink's target as the original has it: `read_link(name, buffer, size)` is
// libc's readlink, or its readlinkat from `dir` (a path relative to `dir`: only
// "exe" of this process's /proc directory is told as the original's). libc reads the
// mirror's copy into a buffer of our own, so that a target made longer by the mirror
// root is not cut.
template <typename ReadLink>
long link_as_original(int dir, const char *path, bool from_cwd, char *buffer, size_t size, ReadLink read_link)
{
    PathText scratch;
    const char *route = from_cwd ? routed(path, false, &scratch) : path;
    if (from_cwd ? !told_as_original(path, route) : !own_executable_link(dir, path))
        return read_link(path, buffer, size);
    char target[4096];
    long got = read_link(route, target, sizeof target - 1);
    if (got < 0)
        return got;
    target[got] = '\0';
    // The mirror's symlinks with an absolute target point into the mirror.
    size_t length = make_original(target, session.settings().mirror_root);
    length = length < size ? length : size;  // cut as readlink cuts: silently
    for (size_t i = 0; i < length; ++i)
        buffer[i] = target[i];
    return long(length);
}

long readlink_wrapper(const char *path, char *buffer, size_t size)
{
    return link_as_original(AT_FDCWD, path, true, buffer, size, [](const char *name, char *into, size_t bytes) {
        return originals.readlink(name, into, bytes);
    });
}

long readlinkat_wrapper(int dir, const char *path, char *buffer, size_t size)
{
    bool from_cwd = dir == AT_FDCWD || (path && path[0] == '/');
    return link_as_original(dir, path, from_cwd, buffer, size, [dir](const char *name, char *into, size_t bytes) {
        return originals.readlinkat(dir, name, into, bytes);
    });
}

// realpath's answer for `path`, which libc was given as `route`: the original's.
char *original_result(char *result, const char *route, const char *path)
{
    if (result && told_as_original(path, route))
        make_original(result, session.settings().mirror_root);
    return result;
}

// Python resolves its main script's directory for sys.path[0] this way: each
// component's readlink happens inside libc, where no binding sees it.
char *realpath_wrapper(const char *path, char *resolved)
{
    PathText scratch;
    const char *route = routed(path, true, &scratch);
    return original_result(originals.realpath(route, resolved), route, path);
}

// _FORTIFY_SOURCE's realpath (Python's), which checks the size of `resolved`.
char *realpath_chk_wrapper(const char *path, char *resolved, size_t resolved_size)
{
    PathText scratch;
    const char *route = routed(path, true, &scratch);
    return original_result(originals.realpath_chk(route, resolved, resolved_size), route, path);
}

// Reading only (Python's main script): a write, an append or a create is the
// application's.
void *fopen64_wrapper(const char *path, const char *mode)
{
    bool reading = mode && mode[0] == 'r';
    for (const char *c = mode; reading && *c; ++c)
        reading = *c != '+';
    PathText scratch;
    return originals.fopen64(reading ? routed(path, true, &scratch) : path, mode);
}

// name, where its original goes, its wrapper
template <typename Function>
bool take(const char *name, const char *wanted, uintptr_t original, Function *slot, Function wrapper,
          uintptr_t *bound)
{
    if (!same(name, wanted))
        return false;
    *slot = reinterpret_cast<Function>(original);
    *bound = reinterpret_cast<uintptr_t>(wrapper);
    return true;
}

}  // namespace

bool wrappers_wanted()
{
    return session.active() && (*session.settings().python_prefixes || session.settings().executable_is_copy);
}

uintptr_t bind_file_function(const char *name, uintptr_t original)
{
    uintptr_t bound = original;
    if (!wrappers_wanted())  // the process binds for its exec wrappers only (programs.h)
        return bound;
    // What names a link or a real path is bound in every process that binds at all
    // (one started from its node's copy answers for /proc/self/exe); the rest only
    // under Python prefixes, since each call through a wrapper costs its scratch paths
    // (about 100-250 ns a stat). stat64 and stat are one function since glibc 2.33,
    // and so on: each alias binds the same wrapper.
    bool links = take(name, "readlink", original, &originals.readlink, &readlink_wrapper, &bound) ||
                 take(name, "readlinkat", original, &originals.readlinkat, &readlinkat_wrapper, &bound) ||
                 take(name, "realpath", original, &originals.realpath, &realpath_wrapper, &bound) ||
                 take(name, "__realpath_chk", original, &originals.realpath_chk, &realpath_chk_wrapper, &bound);
    if (links || !*session.settings().python_prefixes)
        return bound;
    take(name, "open64", original, &originals.open64, &open64_wrapper, &bound) ||
        take(name, "open", original, &originals.open64, &open64_wrapper, &bound) ||
        take(name, "openat64", original, &originals.openat64, &openat64_wrapper, &bound) ||
        take(name, "openat", original, &originals.openat64, &openat64_wrapper, &bound) ||
        take(name, "__open64_2", original, &originals.open64_2, &open64_2_wrapper, &bound) ||
        take(name, "__open_2", original, &originals.open64_2, &open64_2_wrapper, &bound) ||
        take(name, "stat64", original, &originals.stat64, &stat64_wrapper, &bound) ||
        take(name, "stat", original, &originals.stat64, &stat64_wrapper, &bound) ||
        take(name, "lstat64", original, &originals.lstat64, &lstat64_wrapper, &bound) ||
        take(name, "lstat", original, &originals.lstat64, &lstat64_wrapper, &bound) ||
        take(name, "fstatat64", original, &originals.fstatat64, &fstatat64_wrapper, &bound) ||
        take(name, "fstatat", original, &originals.fstatat64, &fstatat64_wrapper, &bound) ||
        take(name, "access", original, &originals.access, &access_wrapper, &bound) ||
        take(name, "mkdir", original, &originals.mkdir, &mkdir_wrapper, &bound) ||
        take(name, "opendir", original, &originals.opendir, &opendir_wrapper, &bound) ||
        take(name, "fopen64", original, &originals.fopen64, &fopen64_wrapper, &bound) ||
        take(name, "fopen", original, &originals.fopen64, &fopen64_wrapper, &bound);
    return bound;
}

}  // namespace piox_load
