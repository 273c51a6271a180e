// error.h - how failures travel inside libdli: a dli::Error carries a DLI_ERR_* code and
// a message naming the file and the cause. The C entry points (api.cpp) catch it,
// record the message for DLI_last_error and return the code.
#pragma once
#include <new>
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

// The calling thread's DLI_last_error text.
std::string &last_error();

// How every C entry point runs its body: a success clears the last error, a failure
// records it (prefixed by the function's name) and returns its code.
template <class Body> int guarded(const char *function, Body body) {
    try {
        body();
        last_error().clear();
        return DLI_SUCCESS;
    } catch (const Error &e) {
        last_error() = std::string(function) + ": " + e.what();
        return e.code();
    } catch (const std::bad_alloc &) {
        last_error() = std::string(function) + ": out of memory";
        return DLI_ERR_NOMEM;
    } catch (const std::exception &e) {
        last_error() = std::string(function) + ": " + e.what();
        return DLI_ERR_IO;
    }
}

}  // namespace dli
