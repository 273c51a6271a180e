// settings.h - what the client is told by its environment, and the paths it derives.
//
//   PIOX_LOAD_DIR      the load servers' directory (required: without it the client
//                      steps aside and the process loads as stock)
//   PIOX_LOAD_NODES    a count N: N simulated nodes on this machine; the process's
//                      node is node<rank*N/size>, from its launcher's rank variables
//   PIOX_HOSTNAME      otherwise, this process's node (default: the kernel's node name)
//   PIOX_LOAD_TIMEOUT  seconds, e.g. 2 or 0.5 (default 2): the bound on every wait
//                      for the server
//   PIOX_LOAD_EXE_AS_IS  not empty: programs the application starts run
//                      from the file system, not from the node's copy (piox load
//                      --exe-as-is)
//   PIOX_LOAD_PYTHON_PREFIXES  directories, ':'-separated, under which the
//                      application's own opens and stats (Python's modules) are
//                      answered from the mirror too (default: none)
#pragma once

#include "text.h"

namespace piox_load {

constexpr int kDefaultTimeoutMs = 2000;

struct Settings {
    const char *socket_path;      // <dir>/<node>/sock
    const char *mirror_root;      // <dir>/<node>/root: the cache, mirroring original paths
    const char *never_existing;   // <dir>/<node>/.enoent: a miss that stays node-local
    const char *listings_root;    // <dir>/<node>/listings: directories' names, for opendir
    const char *executable;       // readlink /proc/self/exe, as an original path
    bool executable_is_copy;      // the process runs the mirror's copy (piox-load-exec)
    bool relocate_programs;       // programs it starts run from the node's copy (programs.cpp)
    const char *library_path;     // LD_LIBRARY_PATH at start-up, "" when unset
    const char *python_prefixes;  // PIOX_LOAD_PYTHON_PREFIXES, "" when unset
    int timeout_ms;
};

enum class SettingsRead {
    kReady,
    kNotAsked,  // PIOX_LOAD_DIR is not set (or the environment cannot be read)
    kFailed,    // asked, but a setting cannot be had: `cause` says why
};

SettingsRead read_settings(Settings *settings, MessageText *cause);

// Whether a program started with `environment` (execve's) has this process's
// client, served by the same server: the same LD_AUDIT and PIOX_LOAD_DIR as this
// process started with, and the same node (PIOX_LOAD_NODES with the launcher's rank
// variables, PIOX_HOSTNAME, or the kernel's name). Call after read_settings.
bool same_client_in(char *const *environment);

// "2", "0.5", "1.25" seconds as milliseconds; `fallback` for anything else.
int parse_timeout_ms(const char *seconds, int fallback);

}  // namespace piox_load
