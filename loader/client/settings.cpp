// settings.cpp - reading the client's settings once, in la_version (see settings.h).
#include "settings.h"

#include "arena.h"
#include "environment.h"
#include "syscalls.h"

namespace piox_load {

namespace {

// <dir>/<node>/<leaf>, copied into the arena; nullptr if too long or out of memory.
const char *node_path(const char *dir, const char *node, const char *leaf)
{
    PathText path;
    path.append(dir).append('/').append(node).append('/').append(leaf);
    return path.overflowed() ? nullptr : arena_copy(path.c_str(), path.size());
}

const char *read_executable(MessageText *cause)
{
    static char target[4096];  // static: off the loader's stack, which may be a thread's
    long got = sys::readlink("/proc/self/exe", target, sizeof target);
    if (got < 0 || size_t(got) == sizeof target) {
        cause->append("cannot read /proc/self/exe: errno ").append_decimal(uint64_t(got < 0 ? -got : 0));
        return nullptr;
    }
    return arena_copy(target, size_t(got));
}

const char *kernel_node_name(sys::Utsname *name)
{
    return sys::uname(name) == 0 ? name->nodename : nullptr;
}

}  // namespace

int parse_timeout_ms(const char *seconds, int fallback)
{
    if (!seconds)
        return fallback;
    int64_t ms = 0;
    int digits = 0;
    const char *c = seconds;
    for (; *c >= '0' && *c <= '9'; ++c, ++digits) {
        ms = ms * 10 + (*c - '0');
        if (ms > 86400)  // a day: beyond that, it is not a timeout
            return fallback;
    }
    ms *= 1000;
    if (*c == '.') {
        int64_t scale = 100;  // milliseconds per digit; finer digits are dropped
        for (++c; *c >= '0' && *c <= '9'; ++c, ++digits, scale /= 10)
            ms += (*c - '0') * scale;
    }
    return *c || digits == 0 ? fallback : int(ms);
}

SettingsRead read_settings(Settings *settings, MessageText *cause)
{
    static Environment environment;
    if (!environment.read())
        return SettingsRead::kNotAsked;
    const char *dir = environment.find("PIOX_LOAD_DIR");
    if (!dir || !*dir)
        return SettingsRead::kNotAsked;

    static sys::Utsname uname_result;
    const char *node = environment.find("PIOX_HOSTNAME");
    if (!node || !*node)
        node = kernel_node_name(&uname_result);
    if (!node) {
        cause->append("cannot read the node name (uname)");
        return SettingsRead::kFailed;
    }
    settings->socket_path = node_path(dir, node, "sock");
    settings->mirror_root = node_path(dir, node, "root");
    settings->never_existing = node_path(dir, node, ".enoent");
    settings->listings_root = node_path(dir, node, "listings");
    if (!settings->socket_path || !settings->mirror_root || !settings->never_existing ||
        !settings->listings_root) {
        cause->append("PIOX_LOAD_DIR is too long, or no memory for its paths");
        return SettingsRead::kFailed;
    }
    settings->executable = read_executable(cause);
    if (!settings->executable)
        return SettingsRead::kFailed;
    const char *library_path = environment.find("LD_LIBRARY_PATH");
    settings->library_path = library_path ? library_path : "";
    const char *python_prefixes = environment.find("PIOX_LOAD_PYTHON_PREFIXES");
    settings->python_prefixes = python_prefixes ? python_prefixes : "";
    settings->timeout_ms = parse_timeout_ms(environment.find("PIOX_LOAD_TIMEOUT"), kDefaultTimeoutMs);
    return SettingsRead::kReady;
}

}  // namespace piox_load
