// files.h - the application's own opens and stats under the Python prefixes (the
// modules, their bytecode and directories Python imports from), answered from the
// node's mirror (issue 17, section 2).
//
// The loader reports each binding of a function from the application to libc
// (la_symbind64, when la_objopen asked for them); for the file functions below the
// client binds its own wrapper instead, which passes the call on to libc's with the
// path replaced: by the mirror's copy, by a node-local path that does not exist (a
// module that is not there: ENOENT without asking the file system), or left as it
// was (outside the prefixes, a write, anything the server does not serve). Only
// PLT calls are seen (NOTES.md §2.2); calls inside libc itself go to the file
// system as before, so realpath and fopen, which make them, are wrapped whole, and a
// readlink's or realpath's answer names the original, not the mirror. So does their
// answer for /proc/self/exe in a process started from the node's copy. A directory's listing (opendir) comes from a
// node-local directory of empty entries with the original's names and types.
#pragma once

#include <stdint.h>

namespace piox_load {

// Whether the client binds these wrappers: a prefix is configured, or the process
// runs the mirror's copy of its executable (whose /proc/self/exe readlink answers
// with the original's path). Otherwise none of them binds (the exec wrappers may,
// programs.h).
bool wrappers_wanted();
// The address to bind for libc's `name`, defined at `original`: a wrapper, or
// `original` itself.
uintptr_t bind_file_function(const char *name, uintptr_t original);

}  // namespace piox_load
