// dli_failure.h - for libdli's unit tests: what a piece of code threw (its DLI_ERR_* code
// and message), and a check of both. Include after <cmocka.h>.
#pragma once
#include <string>

#include "error.h"

namespace dli_test {

// The failure `body` throws (its code and message), or DLI_SUCCESS and "".
struct Failure {
    int code = DLI_SUCCESS;
    std::string message;
};
template <class Body> Failure failure_of(Body body) {
    try {
        body();
    } catch (const dli::Error &e) {
        return {e.code(), e.what()};
    }
    return {};
}

inline void assert_fails(const Failure &f, int code, const std::string &fragment) {
    if (f.code != code || f.message.find(fragment) == std::string::npos)
        fail_msg("expected code %d with \"%s\", got %d: %s", code, fragment.c_str(), f.code, f.message.c_str());
}

}  // namespace dli_test
