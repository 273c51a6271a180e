"""Programs the application starts itself (loader/client/programs.h, Spindle's
--reloc-exec): under `piox load`, execve and its kind, posix_spawn and
posix_spawnp start a dynamically linked program from the node's copy, when the
program's environment carries the client; everything else starts as stock, with
stock's errors. The saving on the shared file system is test_loader_load.py's
test_each_case_reads_its_files_once_per_job[exec]: no open and no read more at 3
processes than at 1."""
import os
import shutil
import struct
import subprocess

import pytest

from test_loader_load import piox_load

STARTER = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
/* starter METHOD PROGRAM [no-audit|clearenv]: starts PROGRAM with the arguments
   {PROGRAM, "child"} by METHOD; no-audit takes LD_AUDIT out of the environment first
   (unsetenv: environ for the methods that use it, the same array given for the
   others); clearenv empties environ (null) and gives execve and execvpe a copy of it. */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "child") == 0) {
        printf("starter child\n");
        return 0;
    }
    if (argc < 3)
        return 2;
    const char *method = argv[1], *program = strcmp(argv[2], "NULL") == 0 ? NULL : argv[2];
    char *child[] = {argv[2], "child", NULL};
    char **given = environ;
    if (argc > 3 && strcmp(argv[3], "no-audit") == 0)
        unsetenv("LD_AUDIT");
    if (argc > 3 && strcmp(argv[3], "clearenv") == 0) {  /* environ is null; execvpe gets the old one */
        given = malloc(sizeof(char *) * 256);
        int n = 0;
        for (char **e = environ; *e && n < 255; e++)
            given[n++] = strdup(*e);
        given[n] = NULL;
        clearenv();
    }
    fflush(stdout);
    if (strcmp(method, "spawn") == 0 || strcmp(method, "spawnp") == 0) {
        pid_t pid;
        /* called, not taken as pointers: a pointer comes from the GOT, where no
           binding is reported to the auditor */
        int error = method[5] ? posix_spawnp(&pid, program, NULL, NULL, child, environ)
                              : posix_spawn(&pid, program, NULL, NULL, child, environ);
        int status = 0;
        if (error == 0 && waitpid(pid, &status, 0) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        printf("%s: %s\n", method, strerror(error));
        return 1;
    }
    if (strcmp(method, "execve") == 0) execve(program, child, given);
    else if (strcmp(method, "execv") == 0) execv(program, child);
    else if (strcmp(method, "execvp") == 0) execvp(program, child);
    else if (strcmp(method, "execvpe") == 0) execvpe(program, child, given);
    else if (strcmp(method, "execl") == 0) execl(program, program, "child", (char *)NULL);
    else if (strcmp(method, "execle") == 0) execle(program, program, "child", (char *)NULL, environ);
    else if (strcmp(method, "execlp") == 0) execlp(program, program, "child", (char *)NULL);
    printf("%s: %s\n", method, strerror(errno));
    return 1;
}
"""

# The child: its argument, its own path as readlink("/proc/self/exe") tells it, and
# where the kernel mapped its executable from (the first line of /proc/self/maps):
# "node" inside PIOX_LOAD_DIR, "fs" anywhere else.
WHOAMI = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char target[4096] = "", line[8192] = "";
    ssize_t n = readlink("/proc/self/exe", target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps || !fgets(line, sizeof line, maps))
        return 1;
    fclose(maps);
    const char *dir = getenv("PIOX_LOAD_DIR");
    int from_node = dir && *dir && strstr(line, dir) != NULL;
    printf("%s %s %s\n", argc > 1 ? argv[1] : "-", target, from_node ? "node" : "fs");
    return 0;
}
"""

METHODS = ["execve", "execv", "execvp", "execvpe", "execl", "execle", "execlp", "spawn", "spawnp"]
SEARCHING = {"execvp", "execvpe", "execlp", "spawnp"}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """bin/starter, bin/whoami (dynamic), bin/whoami-static, bin/whoami-setuid (mode
    4755), bin/whoami-caps (file capabilities), bin/script (#!/bin/sh) and bin/text
    (mode 644)."""
    where = tmp_path_factory.mktemp("programs")
    bin_dir = where / "bin"
    bin_dir.mkdir()
    (where / "starter.c").write_text(STARTER)
    (where / "whoami.c").write_text(WHOAMI)
    for output, source, flags in (("starter", "starter.c", []), ("whoami", "whoami.c", []),
                                  ("whoami-static", "whoami.c", ["-static"])):
        subprocess.run(["gcc", "-O1", *flags, "-o", str(bin_dir / output), str(where / source)],
                       check=True, timeout=120)
    shutil.copy(bin_dir / "whoami", bin_dir / "whoami-setuid")
    (bin_dir / "whoami-setuid").chmod(0o4755)
    # File capabilities (cap_net_raw, permitted and effective: VFS_CAP_REVISION_2), as
    # setcap(8) writes them; setting them needs CAP_SETFCAP (root).
    if os.geteuid() == 0:
        shutil.copy(bin_dir / "whoami", bin_dir / "whoami-caps")
        os.setxattr(bin_dir / "whoami-caps", "security.capability", struct.pack("<5I", 0x02000001, 1 << 13, 0, 0, 0))
    (bin_dir / "script").write_text('#!/bin/sh\necho "script $1 $0"\n')
    (bin_dir / "script").chmod(0o755)
    (bin_dir / "text").write_text("not a program\n")
    (bin_dir / "text").chmod(0o644)
    return bin_dir


def start(programs, method, program, *extra, options=(), stock=False):
    """The starter's run: under `piox load`, or stock. Searching methods get the bare
    name, found through PATH; "NULL" is a null pointer."""
    name = program if method in SEARCHING or program == "NULL" else str(programs / program)
    command = [str(programs / "starter"), method, name, *extra]
    path = f"{programs}:{os.environ['PATH']}"
    if stock:
        return subprocess.run(command, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PATH": path})
    return piox_load(command, env={"PATH": path}, options=options)


@pytest.mark.parametrize("method", METHODS)
def test_a_started_program_runs_from_the_nodes_copy(programs, method):
    """Every method starts the child from the node's copy; the child reads its own
    path as the original's, and prints what it prints stock (but where it ran from)."""
    done = start(programs, method, "whoami")
    stock = start(programs, method, "whoami", stock=True)
    child = str(programs / "whoami")
    assert (stock.returncode, stock.stdout) == (0, f"child {child} fs\n"), stock
    assert (done.returncode, done.stdout, done.stderr) == (0, f"child {child} node\n", ""), done


@pytest.mark.parametrize("method", ["execve", "execv", "execlp", "spawn", "spawnp"])
def test_a_program_started_without_the_client_runs_from_the_file_system(programs, method):
    """A child whose environment has no LD_AUDIT would see the copy's path as its
    own: it starts from the file system (LD_AUDIT unset in environ, which execv and
    execlp read through the executable's copy of `environ`, and execve gets as its
    array). So does any child with --exe-as-is."""
    child = str(programs / "whoami")
    done = start(programs, method, "whoami", "no-audit")
    assert (done.returncode, done.stdout) == (0, f"child {child} fs\n"), done
    as_is = start(programs, method, "whoami", options=["--exe-as-is"])
    assert (as_is.returncode, as_is.stdout) == (0, f"child {child} fs\n"), as_is


@pytest.mark.parametrize("method", ["execve", "execvpe", "execv"])
def test_a_cleared_environment_is_no_crash(programs, method):
    """After clearenv(), environ is a null pointer: execvpe searches glibc's default
    path (where coreutils' whoami answers, as stock), execve gets a copy of the old
    environment (the child from the copy), execv gives the child none (it has no
    client: from the file system)."""
    child = str(programs / "whoami")
    done = start(programs, method, "whoami", "clearenv")
    if method == "execvpe":
        stock = start(programs, method, "whoami", "clearenv", stock=True)
        assert (done.returncode, done.stdout, done.stderr) == (stock.returncode, stock.stdout, stock.stderr), done
    else:
        where = "node" if method == "execve" else "fs"
        assert (done.returncode, done.stdout) == (0, f"child {child} {where}\n"), done


@pytest.mark.parametrize("program,expected", [
    ("whoami-static", "child {bin}/whoami-static fs\n"),
    ("whoami-setuid", "child {bin}/whoami-setuid fs\n"),
    ("whoami-caps", "child {bin}/whoami-caps fs\n"),
    ("script", "script child {bin}/script\n"),
])
@pytest.mark.parametrize("method", ["execve", "execvp", "spawn"])
def test_static_set_id_and_script_programs_run_from_the_file_system(programs, method, program, expected):
    """No auditor answers for a static program, a copy would run a set-ID program or
    one with file capabilities without its privileges, and a script finds its
    siblings from its own path ($0): those start as stock."""
    if not (programs / program).exists():
        pytest.skip("file capabilities are set by root only")
    done = start(programs, method, program)
    stock = start(programs, method, program, stock=True)
    want = expected.format(bin=programs)  # a script's $0 is the path found, searched or not
    assert (done.returncode, done.stdout) == (stock.returncode, stock.stdout) == (0, want), (done, stock)


@pytest.mark.parametrize("method,program", [("execvp", "no-such-program"), ("execve", "no-such-program"),
                                            ("execv", "text"), ("execlp", "text"), ("spawn", "text"),
                                            ("spawnp", "no-such-program"), ("execve", ""),
                                            ("execve", "NULL")])
def test_failures_are_libcs_own(programs, method, program):
    """A program that is nowhere, cannot run, or is a null pointer: the same return
    and errno as stock."""
    done = start(programs, method, program)
    stock = start(programs, method, program, stock=True)
    assert stock.returncode == 1 and ": " in stock.stdout, stock
    assert (done.returncode, done.stdout, done.stderr) == (stock.returncode, stock.stdout, ""), (done, stock)


def test_proc_self_exe_starts_the_program_itself(programs):
    """/proc/self/exe is the starter itself: the server never serves /proc (its own
    /proc/self would be piox-loadd)."""
    done = piox_load([str(programs / "starter"), "execv", "/proc/self/exe"])
    assert (done.returncode, done.stdout, done.stderr) == (0, "starter child\n", ""), done


def test_python_subprocess_and_exec_start_from_the_copy(programs):
    """Python's subprocess (vfork, then execve in the child, which shares the
    parent's memory) and os.execv."""
    child = str(programs / "whoami")
    script = (f"import os, subprocess; subprocess.run([{child!r}, 'sub'], check=True); "
              f"os.execv({child!r}, [{child!r}, 'exec'])")
    done = piox_load(["/usr/bin/python3", "-c", script])
    assert (done.returncode, done.stdout, done.stderr) == (0, f"sub {child} node\nexec {child} node\n", ""), done


def test_a_shell_and_mpiexec_start_their_programs_from_the_copy(programs):
    """A command that is a shell: the shell, the mpiexec it runs (Hydra, which starts
    its proxies) and the ranks, each from the node's copy."""
    child = str(programs / "whoami")
    done = piox_load(["sh", "-c", f"mpiexec -n 2 {child} rank"])
    assert done.returncode == 0 and done.stderr == "", done
    assert done.stdout == f"rank {child} node\n" * 2, done


def test_a_standard_descriptor_closed_at_start_stays_closed(programs):
    """A process started with stdin closed (posix_spawn's close action, a shell's
    0<&-): its client's socket takes a number far above it, so stdin stays closed
    and the process's own first open still gets the lowest free number (CPython's
    test_posix TestPosixSpawn.test_close_file found the socket as stdin)."""
    probe = ("import os\n"
             "try:\n    os.fstat(0)\n    print('stdin open')\n"
             "except OSError:\n    print('stdin closed')\n"
             "print('first open', os.open('/dev/null', os.O_RDONLY))\n")
    command = ["sh", "-c", 'exec 0<&-; exec /usr/bin/python3 -c "$0"', probe]
    stock = subprocess.run(command, capture_output=True, text=True, timeout=60)
    done = piox_load(command)
    assert stock.stdout == "stdin closed\nfirst open 0\n", stock
    assert (done.returncode, done.stdout, done.stderr) == (0, stock.stdout, ""), done
