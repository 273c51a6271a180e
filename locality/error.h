// error.h - how failures travel inside libdli: a dli::Error carries a DLI_ERR_* code and
// a message naming the file and the cause. The C entry points (api.cpp) catch it,
// record the message for DLI_last_error and return the code.
#pragma once
#include <stdexcept>
#include <string>

#include "dli.h"

namespace dli {

class Error : public std::runtime_error {
public:
    Error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

// The DLI_ERR_* code for a failed system call's errno (ENOENT -> DLI_ERR_NOENT, ...).
int code_for_errno(int err);

// Throws Error(code_for_errno(err), what + ": " + strerror(err)).
[[noreturn]] void throw_errno(int err, const std::string &what);

}  // namespace dli
