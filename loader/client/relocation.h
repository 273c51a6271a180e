// relocation.h - starting a program from its node's copy of the executable, not from
// the shared file system (Spindle's --reloc-aout and --reloc-exec): piox-load-exec
// does it for the job's own processes (exec.cpp), the exec wrappers for the programs
// those processes start themselves (programs.cpp).
//
// The kernel's exec of a program looks it up, opens it and reads its pages, a few
// requests a process that no auditor sees. Started from the node's copy, the program
// is read once per job, by the reader, like its libraries. Only a dynamically linked
// ELF program that is not set-user-ID or set-group-ID starts from the copy: in it
// the client answers for /proc/self/exe with the original's path (files.cpp), which
// a static program, unaudited, would see as the copy; a script learns its own path
// ($0, from the kernel's #! handling) and finds its siblings from it, which the
// mirror does not hold; and the copy, the user's own file, would run a set-ID
// program without its privileges (and one with file capabilities without them: the
// server does not give those, loader/server/item.h).
#pragma once

#include "paths.h"
#include "session.h"

namespace piox_load {

enum class Start {
    kCopy,        // from the node's copy, whose path is in *copy
    kMissing,     // the server says the file does not exist
    kFileSystem,  // as stock: not served, or not a program that may start from a copy
};

// Whether the file at `path` (the mirror's copy) may be executed in its original's
// place: a dynamically linked ELF executable (a PT_INTERP among the program headers
// of its first page), not set-ID.
bool starts_from_copy(const char *path);

// In a process started from the copy: the name the kernel keeps of the executed
// file (getauxval(AT_EXECFN), a string on the initial stack) is rewritten in place
// to the original's path, which is its tail.
void show_original_execfn(const char *mirror_root);

// Where the program at `path` (as execve takes it: absolute, or relative to the
// current directory) starts from. `map(absolute, copy)` asks the node's server for
// the file (Session::map or map_alone) and returns its Answer.
template <typename Map>
Start start_of(const char *path, PathText *copy, Map map)
{
    PathText absolute;
    if (!append_absolute(path, &absolute) || absolute.overflowed())
        return Start::kFileSystem;
    switch (map(absolute.c_str(), copy)) {
    case Answer::kFound:
        return starts_from_copy(copy->c_str()) ? Start::kCopy : Start::kFileSystem;
    case Answer::kMissing:
        return Start::kMissing;
    case Answer::kPassThrough:
        break;
    }
    return Start::kFileSystem;
}

}  // namespace piox_load
