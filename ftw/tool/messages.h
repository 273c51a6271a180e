// messages.h - pftw's lines on stderr: errors on entries (from whichever rank and
// thread saw them), usage errors and progress (rank 0). Each line goes out in one
// write() of at most PIPE_BUF bytes, so lines from concurrent writers never mix.
#ifndef PFTW_TOOL_MESSAGES_H
#define PFTW_TOOL_MESSAGES_H

#include <cstdint>
#include <string>
#include <string_view>

namespace pftw_tool {

// bytes with '\\' and every control byte (newline included) written as C escapes,
// so a file name cannot break a message line.
std::string escape_for_message(std::string_view bytes);

// "pftw: 'PATH': Permission denied\n", the path escaped and, if needed, shortened in
// the middle so the whole line fits in PIPE_BUF bytes.
std::string entry_error_line(std::string_view path, int error);

// "pftw: 1234567 entries, 250000/s\n"
std::string progress_line(uint64_t entries, double seconds);

// Writes line to stderr in one write() (retried only if interrupted).
void write_stderr_line(const std::string &line);

// "pftw: message\n" on stderr.
void report(const std::string &message);

}  // namespace pftw_tool

#endif
