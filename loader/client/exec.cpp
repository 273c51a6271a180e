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
// system; a found dynamically linked executable is executed from the mirror. The
// copy keeps the original's mode, so the kernel's checks (execute permission) are the
// original's; argv[0] stays as given; a static program or a script runs from the file
// system (is_dynamic_executable says why). When the session cannot help (no server, a timeout, a
// refusal: session.h), the candidate is executed from the file system, as stock.
// Exits 127 when PROGRAM is found nowhere and 126 when it cannot be executed, as
// env(1) does.
//
// Static and freestanding, from the client's own sources: no loader runs before it
// (LD_AUDIT does not apply), and nothing of its own is read at start-up.
#include "paths.h"
#include "session.h"
#include "syscalls.h"

#include <elf.h>
#include <string.h>

namespace piox_load {

namespace {

Session session;
PathText candidate;  // the original path being tried
PathText copy;       // its mirror path, when served

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

const char *find_variable(char **environment, const char *name)
{
    size_t length = length_of(name);
    for (char **entry = environment; *entry; ++entry)
        if (starts_with(*entry, name) && (*entry)[length] == '=')
            return *entry + length + 1;
    return nullptr;
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

// Whether the file is a dynamically linked ELF executable (it has a PT_INTERP within
// its first page, where linkers put the program headers). Only those run from the
// copy: in them the client answers readlink of /proc/self/exe with the original's
// path (files.cpp), which a static program, unaudited, would see as the copy. And a
// script learns its own path ($0, from the kernel's #! handling) and finds its
// siblings from it, which the mirror does not hold.
bool is_dynamic_executable(const char *path)
{
    long fd = sys::open_read_only(path);
    if (fd < 0)
        return false;
    static unsigned char head[4096];
    long got = sys::read(int(fd), head, sizeof head);
    sys::close(int(fd));
    Elf64_Ehdr header;
    if (got < long(sizeof header))
        return false;
    memcpy(&header, head, sizeof header);
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > uint64_t(got) ||
        header.e_phnum > (uint64_t(got) - header.e_phoff) / sizeof(Elf64_Phdr))
        return false;
    for (size_t i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr program_header;
        memcpy(&program_header, head + header.e_phoff + i * sizeof program_header, sizeof program_header);
        if (program_header.p_type == PT_INTERP)
            return true;
    }
    return false;
}

// Runs the candidate (an original path) from its node-local copy when the server has
// it, from the file system when the session cannot tell; returns the error when it
// does not run (-ENOENT when the server says it does not exist).
long try_candidate(const char *path, char **argv, char **environment)
{
    if (session.active()) {
        candidate.clear();
        if (!append_absolute(path, &candidate) || candidate.overflowed())
            return execute(path, argv, environment);
        switch (session.map(candidate.c_str(), true, &copy)) {
        case Answer::kFound:
            if (is_dynamic_executable(copy.c_str()))
                return execute(copy.c_str(), argv, environment);
            break;
        case Answer::kMissing:
            return -sys::kENOENT;
        case Answer::kPassThrough:
            break;
        }
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
    const char *path = find_variable(environment, "PATH");
    if (!path)
        path = "/bin:/usr/bin";  // glibc's default
    bool denied = false;
    static PathText joined;
    for (const char *start = path;; ++start) {
        const char *end = start;
        while (*end && *end != ':')
            ++end;
        joined.clear();
        if (end != start)
            joined.append(start, size_t(end - start)).append('/');
        joined.append(program);
        if (!joined.overflowed()) {
            long error = try_candidate(joined.c_str(), argv, environment);
            if (error == -sys::kEACCES)
                denied = true;
            else if (error != -sys::kENOENT && error != -sys::kENOTDIR && error != -sys::kESTALE &&
                     error != -sys::kENODEV && error != -sys::kETIMEDOUT)
                fail_with(program, error);
        }
        if (!*end)
            break;
        start = end;
    }
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
