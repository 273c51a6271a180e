// arena.h - memory that lives as long as the process.
//
// la_objsearch's answers must stay valid after it returns, and the client has no
// malloc: strings are copied into chunks of anonymous memory that are never freed
// (a process loads tens or hundreds of libraries, a few hundred bytes each).
#pragma once

#include <stddef.h>

namespace piox_load {

// `bytes` of zeroed memory, or nullptr when the kernel gives none.
void *arena_allocate(size_t bytes);

// A NUL-terminated copy of text[0..length), or nullptr when out of memory.
const char *arena_copy(const char *text, size_t length);

}  // namespace piox_load
