// programs.h - the programs the application starts itself, from the node's copy
// (Spindle's --reloc-exec; relocation.h says which programs may).
//
// execve, execv, execvp, execvpe, execl, execle, execlp, posix_spawn and posix_spawnp,
// as the application calls them through its PLT, are bound to wrappers. A wrapper
// starts a served program from the node's copy when the program's environment
// carries this process's client, served by the same node (settings.h,
// same_client_in): without the client, a child would see the copy's path as its
// own and look for its $ORIGIN libraries in the mirror. Anything else, and a start
// from the copy that fails, goes to libc's own function unchanged, so what the
// caller sees of a failure (the return, errno) is libc's.
//
// The server is asked on a connection of the call's own (Session::map_alone): a
// vfork child (Python's subprocess) shares the process's memory, session included.
// Calls inside libc are not seen: system() and popen() start /bin/sh there, whose
// own execs are wrapped in it.
#pragma once

#include <stdint.h>

namespace piox_load {

// Whether programs the application starts run from the node's copy: the session
// serves, and PIOX_LOAD_EXE_AS_IS is not set. The wrappers bind only then.
bool programs_relocated();
// The address to bind for libc's `name`, defined at `original`: a wrapper, or
// `original` itself (also when libc's own functions cannot be found).
uintptr_t bind_program_function(const char *name, uintptr_t original);

}  // namespace piox_load
