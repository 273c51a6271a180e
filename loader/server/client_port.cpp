#include "client_port.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"

namespace piox_load {

ClientPort::ClientPort(std::string socket_path) : path_(std::move(socket_path))
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path_.size() >= sizeof address.sun_path) {
        error_ = ENAMETOOLONG;
        return;
    }
    memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, SOMAXCONN) != 0)
        error_ = errno;
}

ClientPort::~ClientPort()
{
    for (auto& [connection, buffer] : buffers_)
        close(connection);
    stop_listening();
}

void ClientPort::stop_listening()
{
    if (listener_ >= 0) {
        close(listener_);
        unlink(path_.c_str());
        listener_ = -1;
    }
}

void ClientPort::accept_all()
{
    while (listener_ >= 0) {
        int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (connection < 0)
            return;
        ucred peer{};
        socklen_t length = sizeof peer;
        if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != geteuid()) {
            close(connection);
            continue;
        }
        buffers_[connection];
    }
}

// Reads what the connection has; every whole frame becomes a request.
bool ClientPort::read_from(int connection, std::vector<Request>& requests)
{
    std::string& buffer = buffers_[connection];
    char chunk[8192];
    while (true) {
        ssize_t n = read(connection, chunk, sizeof chunk);
        if (n > 0) {
            buffer.append(chunk, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return false;  // the process closed it (exited, or gave up on us)
        if (errno != EAGAIN)
            return false;
        break;
    }
    while (buffer.size() >= sizeof(Frame)) {
        Frame frame;
        memcpy(&frame, buffer.data(), sizeof frame);
        if (frame.magic != kMagic || frame.length > kMaxPayload)
            return false;
        if (buffer.size() < sizeof frame + frame.length)
            break;
        Request request;
        request.connection = connection;
        request.op = frame.op;
        std::string payload = buffer.substr(sizeof frame, frame.length);
        buffer.erase(0, sizeof frame + frame.length);
        if (!payload.empty() && payload.back() != '\0')
            return false;
        for (size_t at = 0; at < payload.size();) {
            size_t end = payload.find('\0', at);
            request.strings.push_back(payload.substr(at, end - at));
            at = end + 1;
        }
        requests.push_back(std::move(request));
    }
    return true;
}

void ClientPort::drop(int connection, std::vector<int>& closed)
{
    close(connection);
    buffers_.erase(connection);
    closed.push_back(connection);
}

std::vector<Request> ClientPort::wait(int timeout_ms, std::vector<int>& closed)
{
    std::vector<pollfd> fds;
    if (listener_ >= 0)
        fds.push_back({listener_, POLLIN, 0});
    for (auto& [connection, buffer] : buffers_)
        fds.push_back({connection, POLLIN, 0});
    std::vector<Request> requests;
    if (poll(fds.data(), fds.size(), timeout_ms) <= 0)
        return requests;
    for (const pollfd& fd : fds) {
        if (fd.revents == 0)
            continue;
        if (fd.fd == listener_)
            accept_all();
        else if (!read_from(fd.fd, requests))
            drop(fd.fd, closed);
    }
    return requests;
}

void ClientPort::reply(int connection, uint16_t op, uint16_t status, const std::vector<std::string>& strings)
{
    std::string payload;
    for (const std::string& s : strings)
        payload.append(s.c_str(), s.size() + 1);
    Frame frame{kMagic, op, status, static_cast<uint32_t>(payload.size())};
    std::string message(reinterpret_cast<const char*>(&frame), sizeof frame);
    message += payload;
    // Replies are small; a full socket buffer (a process that stopped reading) is
    // waited for a little, then the connection is left to fail on its own.
    size_t done = 0;
    for (int waits = 0; done < message.size() && waits < 100;) {
        ssize_t n = send(connection, message.data() + done, message.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<size_t>(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            pollfd fd{connection, POLLOUT, 0};
            poll(&fd, 1, 10);
            waits++;
        } else {
            return;
        }
    }
}

}  // namespace piox_load
