// programs.cpp - the exec and spawn wrappers of programs.h.
#include "programs.h"

#include "environment.h"
#include "relocation.h"
#include "symbols.h"

#include <stdarg.h>

namespace piox_load {

extern Session session;  // audit.cpp's

namespace {

using ExecveFunction = int (*)(const char *, char *const *, char *const *);
using SpawnFunction = int (*)(int *, const char *, const void *, const void *, char *const *, char *const *);

// libc's own definitions, whatever the application binds: what an execl stands for
// is libc's execve, and the variable environ is never bound through a PLT.
struct Libc {
    ExecveFunction execve;
    ExecveFunction execvpe;
    SpawnFunction posix_spawn;
    SpawnFunction posix_spawnp;
    char ***environ;  // the executable's copy when it has one (symbols.h)
} libc;

// Looked up at the first binding of a wrapped name (libc is loaded by then). Lazy
// bindings may come from two threads at once: each looks up the same addresses, and
// the flag publishes them whole.
bool found_libc()
{
    static int found = 0;  // 0 not yet looked up, 1 found, 2 not found
    int state = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
    if (state == 0) {
        libc.execve = reinterpret_cast<ExecveFunction>(libc_symbol("execve"));
        libc.execvpe = reinterpret_cast<ExecveFunction>(libc_symbol("execvpe"));
        libc.posix_spawn = reinterpret_cast<SpawnFunction>(libc_symbol("posix_spawn"));
        libc.posix_spawnp = reinterpret_cast<SpawnFunction>(libc_symbol("posix_spawnp"));
        libc.environ = static_cast<char ***>(global_symbol("__environ"));
        bool all = libc.execve && libc.execvpe && libc.posix_spawn && libc.posix_spawnp && libc.environ;
        state = all ? 1 : 2;
        __atomic_store_n(&found, state, __ATOMIC_RELEASE);
    }
    return state == 1;
}

// Where `file` starts from; with `search` and no '/' in it, found as execvp finds it:
// in each directory of the caller's PATH in turn ("" is the current directory),
// glibc's "/bin:/usr/bin" when unset. The first directory the server knows it in
// decides; a program found nowhere is libc's to report.
Start start_for(const char *file, bool search, PathText *copy)
{
    auto map = [](const char *absolute, PathText *found) { return session.map_alone(absolute, found); };
    if (!file || !*file)  // libc's to refuse (EFAULT, ENOENT)
        return Start::kFileSystem;
    if (!search || contains(file, '/'))
        return start_of(file, copy, map);
    const char *path = value_in(*libc.environ, "PATH");
    Start found = Start::kFileSystem;
    visit_search_path(path ? path : kDefaultSearchPath, file, [&](const char *candidate) {
        found = start_of(candidate, copy, map);
        return found != Start::kMissing;
    });
    return found == Start::kMissing ? Start::kFileSystem : found;
}

// The copy to start `file` from (in *copy), for a program given `environment`.
bool from_copy(const char *file, bool search, char *const *environment, PathText *copy)
{
    return programs_relocated() && same_client_in(environment) && start_for(file, search, copy) == Start::kCopy;
}

// execve, or execvpe with `search`: from the copy when it can, else (and when that
// fails) as libc has it.
int start_program(const char *file, bool search, char *const *argv, char *const *environment)
{
    PathText copy;
    if (from_copy(file, search, environment, &copy))
        libc.execve(copy.c_str(), argv, environment);  // returns only when it fails
    return (search ? libc.execvpe : libc.execve)(file, argv, environment);
}

int execve_wrapper(const char *path, char *const *argv, char *const *environment)
{
    return start_program(path, false, argv, environment);
}

int execv_wrapper(const char *path, char *const *argv) { return start_program(path, false, argv, *libc.environ); }

int execvp_wrapper(const char *file, char *const *argv) { return start_program(file, true, argv, *libc.environ); }

int execvpe_wrapper(const char *file, char *const *argv, char *const *environment)
{
    return start_program(file, true, argv, environment);
}

// execl, execle and execlp: the list as an array, as glibc builds it (the argument
// after the terminating NULL is execle's environment).
enum class ListKind { kPath, kPathAndEnvironment, kSearch };

template <ListKind kind>
int list_wrapper(const char *file, const char *first, ...)
{
    va_list arguments, counting;
    va_start(arguments, first);
    va_copy(counting, arguments);
    size_t count = 1;
    while (va_arg(counting, const char *))
        ++count;
    va_end(counting);
    char **argv = static_cast<char **>(__builtin_alloca((count + 1) * sizeof(char *)));
    argv[0] = const_cast<char *>(first);
    for (size_t i = 1; i <= count; ++i)
        argv[i] = va_arg(arguments, char *);
    char *const *environment = kind == ListKind::kPathAndEnvironment ? va_arg(arguments, char *const *)
                                                                     : *libc.environ;
    va_end(arguments);
    return start_program(file, kind == ListKind::kSearch, argv, environment);
}

// posix_spawn and posix_spawnp: file actions run in the child before its exec, and
// may change its directory, so with actions only an absolute path is taken to the
// copy.
int spawn(bool search, int *pid, const char *file, const void *actions, const void *attributes, char *const *argv,
          char *const *environment)
{
    PathText copy;
    bool relocatable = file && (!actions || file[0] == '/');
    if (relocatable && from_copy(file, search, environment, &copy) &&
        libc.posix_spawn(pid, copy.c_str(), actions, attributes, argv, environment) == 0)
        return 0;
    return (search ? libc.posix_spawnp : libc.posix_spawn)(pid, file, actions, attributes, argv, environment);
}

int posix_spawn_wrapper(int *pid, const char *path, const void *actions, const void *attributes, char *const *argv,
                        char *const *environment)
{
    return spawn(false, pid, path, actions, attributes, argv, environment);
}

int posix_spawnp_wrapper(int *pid, const char *file, const void *actions, const void *attributes, char *const *argv,
                         char *const *environment)
{
    return spawn(true, pid, file, actions, attributes, argv, environment);
}

}  // namespace

bool programs_relocated() { return session.active() && session.settings().relocate_programs; }

uintptr_t bind_program_function(const char *name, uintptr_t original)
{
    static const struct {
        const char *name;
        uintptr_t wrapper;
    } kWrappers[] = {
        {"execve", reinterpret_cast<uintptr_t>(&execve_wrapper)},
        {"execv", reinterpret_cast<uintptr_t>(&execv_wrapper)},
        {"execvp", reinterpret_cast<uintptr_t>(&execvp_wrapper)},
        {"execvpe", reinterpret_cast<uintptr_t>(&execvpe_wrapper)},
        {"execl", reinterpret_cast<uintptr_t>(&list_wrapper<ListKind::kPath>)},
        {"execle", reinterpret_cast<uintptr_t>(&list_wrapper<ListKind::kPathAndEnvironment>)},
        {"execlp", reinterpret_cast<uintptr_t>(&list_wrapper<ListKind::kSearch>)},
        {"posix_spawn", reinterpret_cast<uintptr_t>(&posix_spawn_wrapper)},
        {"posix_spawnp", reinterpret_cast<uintptr_t>(&posix_spawnp_wrapper)},
    };
    if (name[0] != 'e' && name[0] != 'p')
        return original;
    for (const auto &entry : kWrappers)
        if (same(name, entry.name))
            return programs_relocated() && found_libc() ? entry.wrapper : original;
    return original;
}

}  // namespace piox_load
