// messages.cpp - single-write stderr lines.
#include "messages.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace pftw_tool {

std::string escape_for_message(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20 || c == 0x7F) {
                char octal[8];
                std::snprintf(octal, sizeof octal, "\\%03o", c);
                out += octal;
            } else {
                out.push_back(ch);
            }
        }
    }
    return out;
}

std::string entry_error_line(std::string_view path, int error) {
    char buffer[256];
    // The GNU strerror_r: thread-safe (visit runs on several threads).
    const std::string reason = strerror_r(error, buffer, sizeof buffer);
    std::string shown = escape_for_message(path);
    const std::string head = "pftw: '", tail = "': " + reason + "\n";
    const size_t room = PIPE_BUF - head.size() - tail.size();
    if (shown.size() > room) {
        // Keep both ends of a very long path: its start says where, its end what.
        const std::string ellipsis = "...";
        const size_t keep = (room - ellipsis.size()) / 2;
        shown = shown.substr(0, keep) + ellipsis + shown.substr(shown.size() - keep);
    }
    return head + shown + tail;
}

std::string progress_line(uint64_t entries, double seconds) {
    const double rate = seconds > 0 ? double(entries) / seconds : 0.0;
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "pftw: %llu entries, %.0f/s\n",
                  static_cast<unsigned long long>(entries), rate);
    return buffer;
}

void write_stderr_line(const std::string &line) {
    while (write(STDERR_FILENO, line.data(), line.size()) < 0 && errno == EINTR) {
    }
}

void report(const std::string &message) {
    write_stderr_line("pftw: " + escape_for_message(message) + "\n");
}

}  // namespace pftw_tool
