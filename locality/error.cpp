// error.cpp - errno to DLI_ERR_* codes.
#include "error.h"

#include <cerrno>
#include <cstring>

namespace dli {

int code_for_errno(int err) {
    switch (err) {
    case ENOENT: case ENOTDIR: return DLI_ERR_NOENT;
    case EACCES: case EPERM: return DLI_ERR_ACCESS;
    case ENOMEM: return DLI_ERR_NOMEM;
    case ECONNREFUSED: case ETIMEDOUT: case EHOSTUNREACH: case ENETUNREACH: return DLI_ERR_CONNECT;
    case EINVAL: case ENAMETOOLONG: return DLI_ERR_ARG;
    default: return DLI_ERR_IO;
    }
}

std::string &last_error() {
    thread_local std::string text;
    return text;
}

void throw_errno(int err, const std::string &what) {
    throw Error(code_for_errno(err), what + ": " + std::strerror(err));
}

}  // namespace dli
