// connection.h - one framed request and its reply at a time over the node's Unix socket
// (protocol.h), every wait bounded by the timeout.
//
// Any failure leaves the connection closed and says why in cause(), in words fit for
// the one line the client prints before the process falls back to stock loading.
#pragma once

#include "protocol.h"
#include "syscalls.h"
#include "text.h"

#include <stdint.h>

namespace piox_load {

struct Reply {
    Status status;
    const char *payload;  // `length` bytes, NUL after them; valid until the next request
    uint32_t length;
};

// "hello", "resolve", "open": for messages.
const char *op_name(Op op);

class Connection {
public:
    bool open(const char *socket_path, int timeout_ms);
    // Sends op with its payload and reads the reply, all within the timeout.
    bool exchange(Op op, const char *payload, size_t length, Reply *reply);
    void close();

    bool is_open() const { return open_; }
    // Whether the descriptor is still this connection's socket. The application may
    // have closed it (a daemon closes every descriptor) and reused the number for a
    // file or a socket of its own, which no request may reach: a request would
    // write into it and wait, blocking, for a reply.
    bool still_ours() const;
    // Drops a connection that is no longer ours, leaving its descriptor number alone.
    void forget() { open_ = false; }
    // The process that opened it: a forked child must open its own.
    long owner() const { return owner_; }
    const char *cause() const { return cause_.c_str(); }

private:
    bool fail_with_errno(const char *what, long result);
    bool fail_timed_out(const char *waiting_for);
    bool fail_bad_frame(const char *what, uint64_t got, const char *wanted, uint64_t limit);
    bool finish_connect(int64_t deadline);
    bool note_peer();  // keeps the server's address, once connected
    bool wait_until_ready(short events, int64_t deadline, const char *waiting_for);
    bool send_all(const void *data, size_t length, int64_t deadline);
    bool receive_all(void *buffer, size_t length, int64_t deadline);

    // Every member starts as zeroes (hence open_ beside fd_, not fd_ = -1), so that
    // a global connection lands in .bss instead of carrying its buffer in the file.
    bool open_ = false;
    int fd_ = 0;
    long owner_ = 0;
    int timeout_ms_ = 0;
    const char *socket_path_ = nullptr;  // set by open() before any message uses it
    sys::SockaddrUn peer_{};             // the server's address, as connected
    unsigned peer_length_ = 0;
    MessageText cause_;
    char reply_payload_[kMaxPayload + 1] = {};
};

}  // namespace piox_load
