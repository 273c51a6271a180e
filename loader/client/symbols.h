// symbols.h - definitions of libc and of the other loaded objects, looked up by name.
//
// The client has no C library, and la_symbind64 shows it only the functions the
// application binds through its PLT. The exec wrappers (programs.cpp) also need
// what the application may never bind: `environ` (a variable, never in a PLT) and
// libc's execve and execvpe, to run what execl and its kind stand for as stock.
#pragma once

#include <link.h>

namespace piox_load {

// Called from la_objopen for libc's link map (its own or the mirror's copy).
void note_libc(const link_map *libc);
// The address of libc's definition of `name` (its default version), or nullptr when
// libc was not noted or does not define it.
void *libc_symbol(const char *name);
// The definition of `name` that the loader binds in the main namespace: the first
// of the objects in load order (the executable first) that defines it. A variable
// the executable copies in (`environ`, through a copy relocation) is found there,
// not in libc, whose own copy then goes unused.
void *global_symbol(const char *name);

}  // namespace piox_load
