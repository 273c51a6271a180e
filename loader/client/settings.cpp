// settings.cpp - reading the client's settings once, in la_version (see settings.h).
#include "settings.h"

#include "arena.h"
#include "environment.h"
#include "paths.h"
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

// A decimal count below 2^31, or -1 for anything else (unset, empty, signs, letters).
int64_t parse_count(const char *text)
{
    if (!text || !*text)
        return -1;
    int64_t value = 0;
    for (; *text; ++text) {
        if (*text < '0' || *text > '9' || value > (int64_t(1) << 31))
            return -1;
        value = value * 10 + (*text - '0');
    }
    return value < (int64_t(1) << 31) ? value : -1;
}

// This process's rank and the job's size, as its launcher exported them (Hydra's
// PMI, Open MPI, Slurm): the loader runs long before MPI_Init, so nothing else
// knows. A process with none of them (a singleton) is rank 0 of 1.
constexpr const char *kRankPairs[][2] = {
    {"PMI_RANK", "PMI_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
};

void launcher_rank(const Environment &environment, int64_t *rank, int64_t *size)
{
    for (const auto &pair : kRankPairs) {
        int64_t r = parse_count(environment.find(pair[0]));
        int64_t s = parse_count(environment.find(pair[1]));
        if (r >= 0 && s > r) {
            *rank = r;
            *size = s;
            return;
        }
    }
    *rank = 0;
    *size = 1;
}

// With PIOX_LOAD_NODES=N (a count: N simulated nodes, served as node0 ... node<N-1>),
// consecutive ranks share a node: rank r of s picks node r*N/s, as a launcher fills
// real nodes in blocks. `name` receives "node<k>"; false when PIOX_LOAD_NODES is not
// a count (names, or unset).
bool simulated_node(const Environment &environment, PathText *name)
{
    int64_t nodes = parse_count(environment.find("PIOX_LOAD_NODES"));
    if (nodes < 1)
        return false;
    int64_t rank = 0, size = 1;
    launcher_rank(environment, &rank, &size);
    name->append("node").append_decimal(uint64_t(rank * nodes / size));
    return true;
}

// The environment the process started with, and the node it picked (read once, in
// read_settings).
Environment startup;
PathText own_node;

// The node whose server a process with `environment` uses, into *name: its simulated
// node, else PIOX_HOSTNAME, else the kernel's node name.
bool node_of(const Environment &environment, PathText *name)
{
    if (simulated_node(environment, name))
        return true;
    const char *node = environment.find("PIOX_HOSTNAME");
    sys::Utsname uname_result;
    if (!node || !*node)
        node = kernel_node_name(&uname_result);
    if (!node)
        return false;
    name->append(node);
    return !name->overflowed();
}

// Both unset, or both set alike.
bool same_value(const char *a, const char *b) { return a && b ? same(a, b) : a == b; }

}  // namespace

bool same_client_in(char *const *environment)
{
    if (!environment)
        return false;
    Environment child(environment);
    static const char *const kDeciding[] = {"LD_AUDIT", "PIOX_LOAD_DIR"};
    for (const char *name : kDeciding)
        if (!same_value(child.find(name), startup.find(name)))
            return false;
    PathText child_node;
    return node_of(child, &child_node) && same(child_node.c_str(), own_node.c_str());
}

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
    Environment &environment = startup;
    if (!environment.read())
        return SettingsRead::kNotAsked;
    const char *dir = environment.find("PIOX_LOAD_DIR");
    if (!dir || !*dir)
        return SettingsRead::kNotAsked;

    if (!node_of(environment, &own_node)) {
        cause->append("cannot read the node name (uname)");
        return SettingsRead::kFailed;
    }
    const char *node = own_node.c_str();
    settings->socket_path = node_path(dir, node, "sock");
    settings->mirror_root = node_path(dir, node, "root");
    settings->never_existing = node_path(dir, node, ".enoent");
    settings->listings_root = node_path(dir, node, "listings");
    if (!settings->socket_path || !settings->mirror_root || !settings->never_existing ||
        !settings->listings_root) {
        cause->append("PIOX_LOAD_DIR is too long, or no memory for its paths");
        return SettingsRead::kFailed;
    }
    const char *executable = read_executable(cause);
    if (!executable)
        return SettingsRead::kFailed;
    // Started from the node's copy (piox-load-exec), the executable is known by the
    // path it stands for: the server replays its searches, and $ORIGIN, from there.
    settings->executable = original_path(executable, settings->mirror_root);
    settings->executable_is_copy = settings->executable != executable;
    const char *library_path = environment.find("LD_LIBRARY_PATH");
    settings->library_path = library_path ? library_path : "";
    const char *python_prefixes = environment.find("PIOX_LOAD_PYTHON_PREFIXES");
    settings->python_prefixes = python_prefixes ? python_prefixes : "";
    const char *as_is = environment.find("PIOX_LOAD_EXE_AS_IS");
    settings->relocate_programs = !as_is || !*as_is;
    settings->timeout_ms = parse_timeout_ms(environment.find("PIOX_LOAD_TIMEOUT"), kDefaultTimeoutMs);
    return SettingsRead::kReady;
}

}  // namespace piox_load
