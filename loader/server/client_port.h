// The node's processes' side of a server: the Unix socket <node dir>/sock, its
// connections, and their framed requests and replies (loader/protocol.h). Only
// processes of the server's own user are served (SO_PEERCRED).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace piox_load {

struct Request {
    int connection = -1;
    uint16_t op = 0;
    std::vector<std::string> strings;  // the payload's NUL-terminated strings
};

class ClientPort {
  public:
    // Listens on `socket_path`; error() is 0 or the errno that stopped it.
    explicit ClientPort(std::string socket_path);
    ~ClientPort();
    ClientPort(const ClientPort&) = delete;
    ClientPort& operator=(const ClientPort&) = delete;

    int error() const { return error_; }
    // Waits at most `timeout_ms` for the processes; returns the whole requests that
    // came in. Connections that closed or sent a bad frame are dropped and listed in
    // `closed`.
    std::vector<Request> wait(int timeout_ms, std::vector<int>& closed);
    void reply(int connection, uint16_t op, uint16_t status,
               const std::vector<std::string>& strings = {});
    void stop_listening();

  private:
    void accept_all();
    bool read_from(int connection, std::vector<Request>& requests);  // false: drop it
    void drop(int connection, std::vector<int>& closed);

    std::string path_;
    int listener_ = -1;
    int error_ = 0;
    std::unordered_map<int, std::string> buffers_;  // per connection: bytes not yet a request
};

}  // namespace piox_load
