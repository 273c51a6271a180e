// session.h - the process's session with its node's load server: settings, the
// connection and its hello, requests answered with cache paths, and the one way out.
//
// Any failure ends the session for good: one line on stderr names the cause, and
// from then on every name passes through to the loader (stock loading). A forked
// child reconnects before its first request, since it must not share its parent's
// request stream.
#pragma once

#include "connection.h"
#include "settings.h"

namespace piox_load {

enum class Answer {
    kFound,     // the cached copy's path is in *mirror_path
    kMissing,   // the file system has no such file
    kPassThrough,  // the loader finds this name itself, as stock (and if the session
                   // is over, every later name too)
};

// A lock without a C library: the application's threads call map() concurrently
// (the loader's callbacks come one at a time, but beside them).
class SpinLock {
public:
    void lock();
    void unlock() { __atomic_store_n(&taken_, 0, __ATOMIC_RELEASE); }

private:
    int taken_ = 0;
};

class Session {
public:
    // For la_version: false when the process should load as stock.
    bool start();
    bool active() const { return active_; }
    const Settings &settings() const { return settings_; }

    // A bare library name and the original path of the object that needs it.
    // `ancestors`: `length` bytes of NUL-terminated paths, the requester's loaders with
    // a DT_RPATH, nearest first (ancestry.h).
    Answer resolve(const char *name, const char *requester, const char *ancestors, size_t length,
                   const char **mirror_path);
    // An absolute path ($ORIGIN expanded, mirror root stripped).
    Answer open(const char *path, const char **mirror_path);
    // A path under the Python prefixes that the application opens or stats itself:
    // kFound with the mirror's copy in *mirror, kMissing (ENOENT), or kPassThrough:
    // this one call goes to the file system, and the session goes on.
    Answer map(const char *path, bool follow, PathText *mirror);
    // map(path, follow = true) on a connection of this call's own, opened and closed
    // here, that leaves the session as it is: the exec wrappers may run in a vfork
    // child, which shares this session (its connection included) with its parent.
    // Silent: the caller runs as stock. A server that does not answer in time is
    // not asked again this way (each exec would wait the whole timeout).
    Answer map_alone(const char *path, PathText *mirror) const;
    // A directory under the Python prefixes that the application lists: kFound with
    // a node-local directory of its names in *listing; else as map().
    Answer list(const char *path, PathText *listing);
    // After resolve() answered kMissing: whether the server searched the directory
    // `dir` (`length` bytes, an original path) for it. The loader's candidates in
    // other directories (a search list the server could not replay) stay its own.
    bool searched(const char *dir, size_t length) const;

private:
    bool ready_for_request();
    Answer ask_for_path(Op op, const char *path, const char *root, PathText *answer);
    Answer ask(Op op, const char *subject, const char **mirror_path);
    bool connect_and_greet();
    const char *accept_found(Op op, const char *subject, const Reply &reply);
    void give_up(const char *cause);

    Settings settings_{};
    Connection connection_;
    bool active_ = false;
    PayloadText payload_;  // the request being built (one at a time: lock_ held)
    SpinLock lock_;
    // The directories of the last kMissing answer to resolve, NUL after each.
    char searched_[kMaxPayload] = {};  // initialised: the session stays constant-initialised (no INIT_ARRAY)
    uint32_t searched_length_ = 0;
    // map_alone's server did not answer: one word, written also from a vfork child,
    // whose parent then learns it too.
    mutable int alone_failed_ = 0;
};

}  // namespace piox_load
