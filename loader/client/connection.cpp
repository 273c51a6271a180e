// connection.cpp - the socket under the client's requests (see connection.h).
//
// The socket is non-blocking and every read, write and connect waits in poll() for
// what is left of one deadline: a server that hangs costs the process the timeout
// once, never a hang.
#include "connection.h"

#include "syscalls.h"

#include <string.h>

namespace piox_load {

namespace {

// An AF_UNIX connect fails with EAGAIN, not EINPROGRESS, when the server's backlog
// is full: it is retried after this pause until the deadline.
constexpr int kBacklogRetryMs = 5;

uint64_t errno_of(long result) { return uint64_t(result < 0 ? -result : 0); }

// The socket's number, moved out of the application's way: a process started with a
// standard descriptor closed (posix_spawn's close action, a daemon's child) would
// otherwise find the socket as its stdin, and programs expect their own first opens
// to get the lowest free numbers. From kFirstSocketFd up, or from 3 where the
// descriptor limit is lower; -errno when neither can be had and `fd` is 0, 1 or 2.
constexpr int kFirstSocketFd = 512, kFirstNonStandardFd = 3;
long out_of_the_way(int fd)
{
    long moved = sys::duplicate_at_least(fd, kFirstSocketFd);
    if (moved < 0 && fd < kFirstNonStandardFd)
        moved = sys::duplicate_at_least(fd, kFirstNonStandardFd);
    if (moved < 0 && fd >= kFirstNonStandardFd)
        return fd;  // no room up there: where it is harms no standard descriptor
    sys::close(fd);
    return moved;
}

}  // namespace

const char *op_name(Op op)
{
    switch (op) {
    case kHello: return "hello";
    case kResolve: return "resolve";
    case kOpen: return "open";
    case kMap: return "map";
    case kList: return "list";
    }
    return "request";
}

bool Connection::open(const char *socket_path, int timeout_ms)
{
    close();
    socket_path_ = socket_path;
    timeout_ms_ = timeout_ms;
    cause_.clear();
    sys::SockaddrUn address{};
    address.family = sys::kAfUnix;
    size_t path_length = length_of(socket_path);
    if (path_length >= sizeof address.path) {
        cause_.append("socket path ").append(socket_path).append(" is longer than ")
            .append_decimal(sizeof address.path - 1).append(" bytes");
        return false;
    }
    __builtin_memcpy(address.path, socket_path, path_length + 1);

    long fd = sys::socket(sys::kAfUnix, sys::kSockStream | sys::kSockCloseOnExec | sys::kSockNonBlock, 0);
    if (fd < 0)
        return fail_with_errno("cannot create a socket for", fd);
    fd = out_of_the_way(int(fd));
    if (fd < 0)
        return fail_with_errno("cannot move the socket above the standard descriptors for", fd);
    fd_ = int(fd);
    open_ = true;
    owner_ = sys::getpid();
    int64_t deadline = sys::monotonic_milliseconds() + timeout_ms_;
    for (;;) {
        long result = sys::connect(fd_, &address, sizeof address);
        if (result == 0)
            return note_peer();
        if (result == -sys::kEINTR)
            continue;
        if (result == -sys::kEINPROGRESS)
            return finish_connect(deadline);
        if (result != -sys::kEAGAIN)
            return fail_with_errno("cannot connect to", result);
        if (sys::monotonic_milliseconds() >= deadline)
            return fail_timed_out("a connection (backlog full)");
        sys::poll(nullptr, 0, kBacklogRetryMs);
    }
}

bool Connection::finish_connect(int64_t deadline)
{
    if (!wait_until_ready(sys::kPollOut, deadline, "a connection"))
        return false;
    int error = 0;
    long result = sys::socket_error(fd_, &error);
    if (result < 0)
        return fail_with_errno("cannot connect to", result);
    return error == 0 ? note_peer() : fail_with_errno("cannot connect to", -error);
}

bool Connection::note_peer()
{
    peer_length_ = sizeof peer_;
    long result = sys::peer_name(fd_, &peer_, &peer_length_);
    return result == 0 || fail_with_errno("cannot name the peer of", result);
}

bool Connection::still_ours() const
{
    if (!open_)
        return false;
    sys::SockaddrUn peer{};
    unsigned length = sizeof peer;
    if (sys::peer_name(fd_, &peer, &length) != 0 || length != peer_length_)
        return false;  // closed, or now a file, a pipe or another kind of socket
    return memcmp(&peer, &peer_, length) == 0;
}

bool Connection::exchange(Op op, const char *payload, size_t length, Reply *reply)
{
    if (!is_open()) {
        cause_.clear();
        cause_.append("no connection to ").append(socket_path_ ? socket_path_ : "the load server");
        return false;
    }
    if (length > kMaxPayload) {
        cause_.clear();
        cause_.append(op_name(op)).append(" request of ").append_decimal(length)
            .append(" bytes is over the protocol's limit");
        close();
        return false;
    }
    int64_t deadline = sys::monotonic_milliseconds() + timeout_ms_;
    Frame request{kMagic, op, 0, uint32_t(length)};
    if (!send_all(&request, sizeof request, deadline) || !send_all(payload, length, deadline))
        return false;
    Frame answer{};
    if (!receive_all(&answer, sizeof answer, deadline))
        return false;
    if (answer.magic != kMagic)
        return fail_bad_frame("magic", answer.magic, "expected", kMagic);
    if (answer.op != op)
        return fail_bad_frame("op", answer.op, "expected", op);
    if (answer.status > kRefused)
        return fail_bad_frame("status", answer.status, "at most", kRefused);
    if (answer.length > kMaxPayload)
        return fail_bad_frame("length", answer.length, "at most", kMaxPayload);
    if (!receive_all(reply_payload_, answer.length, deadline))
        return false;
    reply_payload_[answer.length] = '\0';
    *reply = Reply{Status(answer.status), reply_payload_, answer.length};
    return true;
}

bool Connection::send_all(const void *data, size_t length, int64_t deadline)
{
    const char *next = static_cast<const char *>(data);
    while (length) {
        long sent = sys::send(fd_, next, length);
        if (sent > 0) {
            next += sent;
            length -= size_t(sent);
        } else if (sent == -sys::kEAGAIN) {
            if (!wait_until_ready(sys::kPollOut, deadline, "room to send a request"))
                return false;
        } else if (sent != -sys::kEINTR) {
            return fail_with_errno("cannot send to", sent);
        }
    }
    return true;
}

bool Connection::receive_all(void *buffer, size_t length, int64_t deadline)
{
    char *next = static_cast<char *>(buffer);
    while (length) {
        long got = sys::receive(fd_, next, length);
        if (got > 0) {
            next += got;
            length -= size_t(got);
        } else if (got == 0) {
            cause_.clear();
            cause_.append(socket_path_).append(" closed the connection before replying");
            close();
            return false;
        } else if (got == -sys::kEAGAIN) {
            if (!wait_until_ready(sys::kPollIn, deadline, "a reply"))
                return false;
        } else if (got != -sys::kEINTR) {
            return fail_with_errno("cannot receive from", got);
        }
    }
    return true;
}

bool Connection::wait_until_ready(short events, int64_t deadline, const char *waiting_for)
{
    for (;;) {
        int64_t left = deadline - sys::monotonic_milliseconds();
        if (left <= 0)
            return fail_timed_out(waiting_for);
        sys::PollFd watched{fd_, events, 0};
        long ready = sys::poll(&watched, 1, int(left));
        if (ready > 0)
            return true;  // readable, writable or failed: the next call says which
        if (ready < 0 && ready != -sys::kEINTR)
            return fail_with_errno("cannot poll", ready);
    }
}

void Connection::close()
{
    if (open_)
        sys::close(fd_);
    open_ = false;
}

bool Connection::fail_with_errno(const char *what, long result)
{
    cause_.clear();
    cause_.append(what).append(' ').append(socket_path_).append(": errno ").append_decimal(errno_of(result));
    close();
    return false;
}

bool Connection::fail_timed_out(const char *waiting_for)
{
    cause_.clear();
    cause_.append("timed out after ").append_decimal(uint64_t(timeout_ms_)).append(" ms waiting for ")
        .append(waiting_for).append(" on ").append(socket_path_);
    close();
    return false;
}

bool Connection::fail_bad_frame(const char *what, uint64_t got, const char *wanted, uint64_t limit)
{
    cause_.clear();
    cause_.append("bad frame from ").append(socket_path_).append(": ").append(what).append(' ')
        .append_hex(got).append(", ").append(wanted).append(' ').append_hex(limit);
    close();
    return false;
}

}  // namespace piox_load
