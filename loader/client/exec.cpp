// exec.cpp - piox-load-exec PROGRAM [ARGS...]: runs PROGRAM from its node's copy.
//
// `piox load` puts this program before the application's in the job's command. The
// kernel's exec of the application is the one read of the shared file system that no
// auditor sees: every process's exec looks the executable up, opens it and reads its
// pages (about 7 requests a process on the counting fixture), so it grows with P.
// Started from the node-local copy instead, the executable is read once per job, by
// the reader, like the libraries (Spindle's --reloc-aout).
//
// PROGRAM is found as execvp(3) finds it: as given when it has a '/', else in each
// directory of PATH in turn. Each candidate is asked of the node's server (kMap: any
// file, not only a shared object), whose listings answer a miss without the file
// system; a found dynamically linked executable is executed from the mirror
// (relocation.h). The copy keeps the original's mode, so the kernel's checks (execute
// permission) are the original's; argv[0] stays as given; a static program or a
// script runs from the file system. When the session cannot help (no server, a timeout, a
// refusal: session.h), the candidate is executed from the file system, as stock.
// Exits 127 when PROGRAM is found nowhere and 126 when it cannot be executed, as
// env(1) does.
//
// Static and freestanding, from the client's own sources: no loader runs before it
// (LD_AUDIT does not apply), and nothing of its own is read at start-up.
#include "environment.h"
#include "relocation.h"
#include "syscalls.h"

namespace piox_load {

namespace {

Session session;
PathText copy;  // the mirror path of the candidate being tried, when served

[[noreturn]] void fail(const char *program, const char *what, int status)
{
    MessageText line;
    line.append("piox-load-exec: ").append(program).append(": ").append(what).append('\n');
    sys::write(sys::kStderr, line.c_str(), line.size());
    sys::exit_group(status);
}

// What a failed exec of PROGRAM tells its user, and the exit status, as env(1) has it.
[[noreturn]] void fail_with(const char *program, long error)
{
    if (error == -sys::kENOENT)
        fail(program, "no such file or directory", 127);
    fail(program, error == -sys::kEACCES ? "permission denied" : "cannot execute", 126);
}

// execve of `path`, and for a file the kernel cannot execute (ENOEXEC: no #! line),
// /bin/sh with it as a script, as execvp does. Returns the error when neither runs.
long execute(const char *path, char **argv, char **environment)
{
    long error = sys::execve(path, argv, environment);
    if (error != -sys::kENOEXEC)
        return error;
    static const char *script[4096];
    size_t count = 0;
    while (argv[count] && count < 4093)
        ++count;
    if (argv[count])
        return error;  // too many arguments to prepend the shell: report ENOEXEC
    script[0] = "/bin/sh";
    script[1] = path;
    for (size_t i = 1; i <= count; ++i)
        script[i + 1] = argv[i];
    return sys::execve("/bin/sh", const_cast<char **>(script), environment);
}

// Runs the candidate (an original path) from its node-local copy when the server has
// it, from the file system when the session cannot tell; returns the error when it
// does not run (-ENOENT when the server says it does not exist).
long try_candidate(const char *path, char **argv, char **environment)
{
    if (!session.active())
        return execute(path, argv, environment);
    auto map = [](const char *absolute, PathText *found) { return session.map(absolute, true, found); };
    switch (start_of(path, &copy, map)) {
    case Start::kCopy:
        return execute(copy.c_str(), argv, environment);
    case Start::kMissing:
        return -sys::kENOENT;
    case Start::kFileSystem:
        break;
    }
    return execute(path, argv, environment);
}

[[noreturn]] void run(char **argv, char **environment)
{
    const char *program = argv[0];
    if (!*program)
        fail("''", "no such file or directory", 127);
    if (contains(program, '/'))
        fail_with(program, try_candidate(program, argv, environment));
    // execvp's search: each PATH directory in order ("" is the current one); a
    // directory without it, or where it cannot be executed, passes to the next.
    const char *path = value_in(environment, "PATH");
    bool denied = false;
    visit_search_path(path ? path : kDefaultSearchPath, program, [&](const char *candidate) {
        long error = try_candidate(candidate, argv, environment);
        if (error == -sys::kEACCES)
            denied = true;
        else if (error != -sys::kENOENT && error != -sys::kENOTDIR && error != -sys::kESTALE &&
                 error != -sys::kENODEV && error != -sys::kETIMEDOUT)
            fail_with(program, error);
        return false;
    });
    fail(program, denied ? "permission denied" : "command not found", denied ? 126 : 127);
}

}  // namespace

}  // namespace piox_load

// The process's entry, from _start: the kernel's initial stack (argc, argv, NULL,
// the environment, NULL).
extern "C" [[noreturn]] __attribute__((used)) void piox_load_exec_main(long *stack)
{
    using namespace piox_load;
    long argc = stack[0];
    char **argv = reinterpret_cast<char **>(stack + 1);
    char **environment = argv + argc + 1;
    if (argc < 2) {
        static const char usage[] = "usage: piox-load-exec PROGRAM [ARGS...]\n";
        sys::write(sys::kStderr, usage, sizeof usage - 1);
        sys::exit_group(2);
    }
    session.start();  // when it cannot, it says why once, and every candidate runs as stock
    run(argv + 1, environment);
}

__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "    xor %rbp, %rbp\n"
        "    mov %rsp, %rdi\n"
        "    and $-16, %rsp\n"
        "    call piox_load_exec_main\n"
        "    hlt\n");
