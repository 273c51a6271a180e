// session.cpp - requests to the load server and the fall-back to stock loading
// (see session.h).
#include "session.h"

#include "arena.h"
#include "syscalls.h"

#include <new>

namespace piox_load {

namespace {

size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

}  // namespace

bool Session::start()
{
    MessageText cause;
    switch (read_settings(&settings_, &cause)) {
    case SettingsRead::kNotAsked:
        return false;  // silently: nobody asked for piox's loading
    case SettingsRead::kFailed:
        give_up(cause.c_str());
        return false;
    case SettingsRead::kReady:
        break;
    }
    active_ = connect_and_greet();
    return active_;
}

bool Session::connect_and_greet()
{
    if (!connection_.open(settings_.socket_path, settings_.timeout_ms)) {
        give_up(connection_.cause());
        return false;
    }
    payload_.clear();
    payload_.append_field(settings_.executable).append_field(settings_.library_path);
    Reply reply{};
    if (payload_.overflowed()) {
        give_up("the executable's path and LD_LIBRARY_PATH are too long for a hello");
        return false;
    }
    if (!connection_.exchange(kHello, payload_.c_str(), payload_.size(), &reply)) {
        give_up(connection_.cause());
        return false;
    }
    if (reply.status != kFound) {
        MessageText cause;
        cause.append("the server at ").append(settings_.socket_path).append(" answered hello with status ")
            .append_decimal(reply.status);
        give_up(cause.c_str());
        return false;
    }
    return true;
}

void SpinLock::lock()
{
    while (__atomic_exchange_n(&taken_, 1, __ATOMIC_ACQUIRE))
        sys::sched_yield();
}

namespace {

struct Locked {
    explicit Locked(SpinLock &lock) : lock_(lock) { lock_.lock(); }
    ~Locked() { lock_.unlock(); }
    SpinLock &lock_;
};

}  // namespace

Answer Session::resolve(const char *name, const char *requester, const char *ancestors,
                        size_t length, const char **mirror_path)
{
    Locked locked(lock_);
    if (!ready_for_request())
        return Answer::kPassThrough;
    payload_.clear();
    payload_.append_field(name).append_field(requester).append(ancestors, length);
    return ask(kResolve, name, mirror_path);
}

Answer Session::open(const char *path, const char **mirror_path)
{
    Locked locked(lock_);
    if (!ready_for_request())
        return Answer::kPassThrough;
    payload_.clear();
    payload_.append_field(path);
    return ask(kOpen, path, mirror_path);
}

Answer Session::map(const char *path, bool follow, PathText *mirror)
{
    Locked locked(lock_);
    if (!ready_for_request())
        return Answer::kPassThrough;
    payload_.clear();
    payload_.append_field(path).append_field(follow ? "1" : "0");
    return ask_for_path(kMap, path, settings_.mirror_root, mirror);
}

Answer Session::list(const char *path, PathText *listing)
{
    Locked locked(lock_);
    if (!ready_for_request())
        return Answer::kPassThrough;
    payload_.clear();
    payload_.append_field(path);
    return ask_for_path(kList, path, settings_.listings_root, listing);
}

namespace {

// A kFound reply that names one path under `root`, into *answer.
bool take_path(const Reply &reply, const char *root, PathText *answer)
{
    bool one_string = reply.length > 0 && length_of(reply.payload) + 1 == reply.length;
    if (!one_string || !starts_with(reply.payload, root))
        return false;
    answer->clear();
    answer->append(reply.payload, reply.length - 1);
    return true;
}

}  // namespace

// The request in payload_, whose kFound reply must name one path under `root`.
Answer Session::ask_for_path(Op op, const char *path, const char *root, PathText *answer)
{
    if (payload_.overflowed())
        return Answer::kPassThrough;
    Reply reply{};
    if (!connection_.exchange(op, payload_.c_str(), payload_.size(), &reply)) {
        give_up(connection_.cause());
        return Answer::kPassThrough;
    }
    if (reply.status == kMissing)
        return Answer::kMissing;
    if (reply.status != kFound)
        return Answer::kPassThrough;  // this call only: the server does not serve it
    if (!take_path(reply, root, answer)) {
        MessageText cause;
        cause.append("the server at ").append(settings_.socket_path).append(" answered ")
            .append(op_name(op)).append(' ').append(path).append(" with a bad reply");
        give_up(cause.c_str());
        return Answer::kPassThrough;
    }
    return answer->overflowed() ? Answer::kPassThrough : Answer::kFound;
}

Answer Session::map_alone(const char *path, PathText *mirror) const
{
    if (!active_ || __atomic_load_n(&alone_failed_, __ATOMIC_RELAXED))
        return Answer::kPassThrough;
    // The connection's reply buffer (64 KiB) is more than a thread's or a vfork
    // child's stack should be asked for: it lives in a mapping of its own.
    struct Alone {
        Connection connection;
        PayloadText request;
    };
    long address = sys::map_anonymous(sizeof(Alone));
    if (sys::mapping_failed(address))
        return Answer::kPassThrough;
    Alone *alone = new (reinterpret_cast<void *>(address)) Alone;
    alone->request.append_field(path).append_field("1");
    Answer answer = Answer::kPassThrough;
    Reply reply{};
    if (!alone->request.overflowed()) {  // kMap alone: it needs no hello (protocol.h)
        Connection &connection = alone->connection;
        bool answered = connection.open(settings_.socket_path, settings_.timeout_ms) &&
                        connection.exchange(kMap, alone->request.c_str(), alone->request.size(), &reply);
        if (!answered)
            __atomic_store_n(&alone_failed_, 1, __ATOMIC_RELAXED);
        else if (reply.status == kMissing)
            answer = Answer::kMissing;
        else if (reply.status == kFound && take_path(reply, settings_.mirror_root, mirror) && !mirror->overflowed())
            answer = Answer::kFound;
        connection.close();
    }
    alone->~Alone();
    sys::unmap(alone, sizeof(Alone));
    return answer;
}

// Before the request is built: a reconnection's hello reuses payload_.
bool Session::ready_for_request()
{
    if (!active_)
        return false;
    if (connection_.owner() != sys::getpid()) {  // a forked child: its own connection
        active_ = connect_and_greet();
    } else if (!connection_.still_ours()) {  // the application closed it: a new one
        connection_.forget();
        active_ = connect_and_greet();
    }
    return active_;
}

Answer Session::ask(Op op, const char *subject, const char **mirror_path)
{
    if (payload_.overflowed())  // past PATH_MAX: this one name is the loader's to find
        return Answer::kPassThrough;
    Reply reply{};
    if (!connection_.exchange(op, payload_.c_str(), payload_.size(), &reply)) {
        give_up(connection_.cause());
        return Answer::kPassThrough;
    }
    if (reply.status == kMissing) {
        bool listed = reply.length == 0 || reply.payload[reply.length - 1] == '\0';
        searched_length_ = op == kResolve && listed ? reply.length : 0;
        for (uint32_t i = 0; i < searched_length_; i++)
            searched_[i] = reply.payload[i];
        return Answer::kMissing;
    }
    *mirror_path = accept_found(op, subject, reply);
    return *mirror_path ? Answer::kFound : Answer::kPassThrough;
}

// The reply's cache path copied to the arena, or nullptr (and the session over) when
// the server refused or named something that is not one path under the mirror root.
const char *Session::accept_found(Op op, const char *subject, const Reply &reply)
{
    MessageText cause;
    cause.append("the server at ").append(settings_.socket_path);
    if (reply.status == kRefused) {
        cause.append(" refused ").append(op_name(op)).append(' ').append(subject);
        give_up(cause.c_str());
        return nullptr;
    }
    const char *path = reply.payload;
    size_t root_length = length_of(settings_.mirror_root);
    bool one_string = reply.length > 0 && length_of(path) + 1 == reply.length;
    if (!one_string || !starts_with(path, settings_.mirror_root) || path[root_length] != '/') {
        cause.append(" answered ").append(op_name(op)).append(' ').append(subject)
            .append(" with a bad reply (not one path under ").append(settings_.mirror_root).append(')');
        give_up(cause.c_str());
        return nullptr;
    }
    const char *copy = arena_copy(path, reply.length - 1);
    if (!copy)
        give_up("no memory for the cache's paths");
    return copy;
}

bool Session::searched(const char *dir, size_t length) const
{
    for (uint32_t at = 0; at < searched_length_;) {
        size_t entry = length_of(searched_ + at);
        if (entry == length) {
            size_t i = 0;
            while (i < length && searched_[at + i] == dir[i])
                i++;
            if (i == length)
                return true;
        }
        at += static_cast<uint32_t>(entry) + 1;
    }
    return false;
}

void Session::give_up(const char *cause)
{
    connection_.close();
    active_ = false;
    MessageText line;
    line.append("piox load: ").append(cause).append("; this process loads from the file system\n");
    if (line.overflowed()) {  // keep the line whole: cut the cause, not the ending
        line.clear();
        line.append("piox load: ").append(cause, min_size(length_of(cause), 900)).append("...; this process loads from the file system\n");
    }
    sys::write(sys::kStderr, line.c_str(), line.size());
}

}  // namespace piox_load
