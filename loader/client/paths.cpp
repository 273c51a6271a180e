// paths.cpp - path arithmetic for la_objsearch (see paths.h).
#include "paths.h"

#include "syscalls.h"

#include <string.h>

namespace piox_load {

namespace {

bool is_identifier_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of the $ORIGIN token at `dollar` ("$ORIGIN" or "${ORIGIN}"), 0 if there is
// none. As glibc's is_dst: an unbraced name must not run on into more identifier.
size_t origin_token_length(const char *dollar)
{
    if (starts_with(dollar, "${ORIGIN}"))
        return 9;
    if (starts_with(dollar, "$ORIGIN") && !is_identifier_char(dollar[7]))
        return 7;
    return 0;
}

bool append_current_directory(PathText *out)
{
    static char cwd[4096];  // static: off the loader's stack
    if (sys::getcwd(cwd, sizeof cwd) <= 0 || cwd[0] != '/')  // "(unreachable)/..." too
        return false;
    out->append(cwd);
    return true;
}

}  // namespace

const char *original_path(const char *path, const char *mirror_root)
{
    size_t root_length = length_of(mirror_root);
    if (starts_with(path, mirror_root) && path[root_length] == '/')
        return path + root_length;
    return path;
}

size_t make_original(char *path, const char *mirror_root)
{
    const char *original = original_path(path, mirror_root);
    size_t length = length_of(original);
    if (original != path)
        memmove(path, original, length + 1);
    return length;
}

bool append_absolute(const char *path, PathText *out)
{
    if (path[0] != '/') {
        if (!append_current_directory(out))
            return false;
        if (out->size() == 0 || out->c_str()[out->size() - 1] != '/')
            out->append('/');
    }
    out->append(path);
    return true;
}

bool append_origin_of(const char *path, PathText *out)
{
    size_t start = out->size();
    if (!append_absolute(path, out))
        return false;
    size_t last_slash = start;
    for (size_t i = start; i < out->size(); ++i)
        if (out->c_str()[i] == '/')
            last_slash = i;
    out->truncate(last_slash == start ? start + 1 : last_slash);  // "/lib.so" -> "/"
    return true;
}

Expansion expand_origin(const char *name, const char *origin, PathText *out)
{
    for (const char *c = name; *c; ++c) {
        if (*c != '$') {
            out->append(*c);
            continue;
        }
        size_t token = origin_token_length(c);
        if (!token)
            return Expansion::kOtherToken;
        out->append(origin);
        c += token - 1;
    }
    return out->overflowed() ? Expansion::kTooLong : Expansion::kExpanded;
}

}  // namespace piox_load
