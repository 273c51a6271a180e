// environment.h - the process's environment, read from /proc/self/environ.
//
// The client has no C library, so no `environ`: the kernel's copy of the environment
// the process started with is what the loader itself saw (LD_LIBRARY_PATH included).
#pragma once

#include <stddef.h>

namespace piox_load {

class Environment {
public:
    // Reads /proc/self/environ; false when it cannot (no /proc, no memory).
    bool read();
    // An environment array's instead (execve's): it must outlive this object.
    constexpr explicit Environment(char *const *array = nullptr) : array_(array) {}
    // The value of `name`, or nullptr when it is not set.
    const char *find(const char *name) const;

private:
    char *const *array_;
    const char *entries_ = nullptr;  // "NAME=value\0" ..., kept for the process's life
    size_t size_ = 0;
};

// The value of `name` in an environment array (execve's, or the initial stack's; a
// null array after clearenv has none), or nullptr when it is not set.
const char *value_in(char *const *environment, const char *name);

}  // namespace piox_load
