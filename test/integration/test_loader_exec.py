"""piox-load-exec (loader/client/exec.cpp): under `piox load`, each process starts
from its node's copy of the program, found as execvp(3) finds it, and `piox load`
puts it before the program of each of the command's segments, as the launcher reads
the command. How much that saves is test_loader_load.py's
test_each_library_is_read_once_whatever_the_processes: every count the same at 1, 4
and 8 processes."""
import os
import subprocess

import pytest

from test_loader_load import EXEC, piox_load

SHOW_SELF = 'readlink /proc/$$/exe; tr "\\0" " " </proc/$$/cmdline; echo'


def test_the_program_runs_from_the_nodes_copy_with_its_own_argv0(tmp_path):
    """The process's executable is the mirror's copy of dash (/bin/sh), as another
    process sees it (/proc/<pid>/exe, read by readlink(1)); argv[0] is the name it was
    given. With --exe-as-is, the file system's."""
    base = {"PIOX_LOAD_BASE": str(tmp_path)}
    done = piox_load(["sh", "-c", SHOW_SELF], env=base)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    exe, argv = done.stdout.splitlines()
    assert exe.startswith(f"{tmp_path}/piox-load.") and exe.endswith("/root/usr/bin/dash"), exe
    assert argv == f"sh -c {SHOW_SELF} ", argv
    stock = piox_load(["sh", "-c", SHOW_SELF], env=base, options=["--exe-as-is"])
    assert stock.stdout.splitlines() == ["/usr/bin/dash", argv], stock.stdout
    assert not list(tmp_path.iterdir()), "piox load left its directory behind"


SELF_EXE = r"""
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char target[4096];
    if (argc > 1 && strcmp(argv[1], "execfn") == 0) {  /* the kernel's name of the executed file */
        printf("%s\n", (const char *)getauxval(AT_EXECFN));
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", target, sizeof target);
    printf("%.*s\n", (int)(n < 0 ? 0 : n), target);
    return n < 0;
}
"""


@pytest.fixture(scope="module")
def self_exe(tmp_path_factory):
    """A program that prints readlink("/proc/self/exe"), built dynamic and static."""
    where = tmp_path_factory.mktemp("self-exe")
    (where / "self_exe.c").write_text(SELF_EXE)
    for kind, flags in (("dynamic", []), ("static", ["-static"])):
        subprocess.run(["gcc", "-O1", *flags, "-o", str(where / kind), str(where / "self_exe.c")],
                       check=True, timeout=120)
    return where


def test_a_program_reads_its_own_path_as_the_original(self_exe):
    """Started from the copy, a dynamically linked program that reads /proc/self/exe
    (readlink, readlinkat, also of "exe" from its /proc directory, and realpath as
    Python's os.path.realpath walks it, through /proc/<pid>/exe) is told the
    original's path, and so is one that asks
    for the kernel's name of the file it runs (getauxval(AT_EXECFN)). A static one, which no auditor
    can answer for, is not moved at all: it runs from the file system."""
    script = ("import os; print(os.readlink('/proc/self/exe')); print(os.path.realpath('/proc/self/exe')); "
              "print(os.readlink('/proc/self/exe', dir_fd=os.open('/', os.O_RDONLY))); "  # readlinkat
              "print(os.readlink('exe', dir_fd=os.open('/proc/self', os.O_RDONLY))); "  # ... from /proc/<pid>
              "print(os.readlink('exe', dir_fd=os.open('/proc/thread-self', os.O_RDONLY)))")
    python = os.path.realpath("/usr/bin/python3")
    cases = [([str(self_exe / "dynamic")], f"{self_exe / 'dynamic'}\n"),
             ([str(self_exe / "dynamic"), "execfn"], f"{self_exe / 'dynamic'}\n"),
             ([str(self_exe / "static")], f"{self_exe / 'static'}\n"),
             (["readlink", "/proc/self/exe"], "/usr/bin/readlink\n"),
             (["/usr/bin/python3", "-c", script], f"{python}\n" * 5)]
    for command, expected in cases:
        done = piox_load(command)
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, ""), (command, done)


@pytest.fixture
def path_dirs(tmp_path):
    """d1/prog not executable, d2/prog a script that prints d2, d3/prog printing d3,
    d3/plain an executable text without #! (execvp runs it with /bin/sh), d3/sub a
    directory named like a program."""
    dirs = [tmp_path / f"d{i}" for i in (1, 2, 3)]
    for d in dirs:
        d.mkdir()
    (dirs[0] / "prog").write_text("#!/bin/sh\necho d1\n")
    (dirs[0] / "prog").chmod(0o644)
    for d in dirs[1:]:
        (d / "prog").write_text(f"#!/bin/sh\necho {d.name} \"$@\"\n")
        (d / "prog").chmod(0o755)
    (dirs[2] / "plain").write_text("echo plain \"$@\"\n")
    (dirs[2] / "plain").chmod(0o755)
    (dirs[2] / "sub").mkdir()
    return dirs


@pytest.mark.parametrize("command", [["prog", "x"], ["plain", "y"], ["nosuch"], ["sub"],
                                     ["./d1/prog"], ["./d3/prog", "z"], ["./d3/sub"]])
def test_programs_are_found_and_refused_as_execvp_has_it(path_dirs, command):
    """The same output and exit status as env(1) running the command, which uses
    execvp: PATH in order, a file without execute permission passed over, a text
    without #! run by /bin/sh, 127 for a program found nowhere, 126 for one that
    cannot run; and the message names piox-load-exec and the program."""
    cwd = path_dirs[0].parent
    path = ":".join(str(d) for d in path_dirs) + ":" + os.environ["PATH"]
    stock = subprocess.run(["env", *command], capture_output=True, text=True, cwd=cwd,
                           env={**os.environ, "PATH": path}, timeout=60)
    done = piox_load(command, env={"PATH": path}, cwd=cwd)
    assert (done.returncode, done.stdout) == (stock.returncode, stock.stdout), (done, stock)
    if stock.returncode in (126, 127):
        assert done.stderr.startswith(f"piox-load-exec: {command[0]}: "), done.stderr


def test_without_servers_it_runs_the_program_as_it_is(tmp_path):
    """Outside `piox load` (no PIOX_LOAD_DIR), silently the program itself."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PIOX_LOAD")}
    done = subprocess.run([str(EXEC), "sh", "-c", SHOW_SELF], capture_output=True, text=True,
                          env=environment, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines()[0] == "/usr/bin/dash", done.stdout
    usage = subprocess.run([str(EXEC)], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: piox-load-exec PROGRAM"), usage


def test_a_server_that_is_gone_leaves_the_program_to_the_file_system(tmp_path):
    """PIOX_LOAD_DIR names no server: one line says why, and the program runs."""
    environment = {**os.environ, "PIOX_LOAD_DIR": str(tmp_path), "PIOX_LOAD_TIMEOUT": "0.5"}
    done = subprocess.run([str(EXEC), "sh", "-c", SHOW_SELF], capture_output=True, text=True,
                          env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "/usr/bin/dash", done.stdout
    assert done.stderr.startswith("piox load: ") and "this process loads from the file system" in done.stderr


@pytest.mark.parametrize("command,programs", [
    (["mpiexec", "-genv", "A", "B", "-n", "2", "-ppn", "1", "sh", "-c", "x", ":", "-n", "1", "true"],
     [8, 14]),
    (["mpiexec", "--wdir", "/tmp", "-n", "2", "sh"], [5]),
    (["mpirun.openmpi", "--mca", "btl", "self", "-np", "2", "--oversubscribe", "-x", "A=1", "sh"], [9]),
    (["srun", "-n", "2", "--mem", "4G", "-N1", "--overlap", "sh", "-n", "2"], [7]),
    (["sh", "-c", "true"], [0]),
    (["mpiexec", "-configfile", "none", "-n", "2"], []),  # no program on the line: left alone
    (["mpiexec", "-n", "2", "./no-such-program"], []),
])
def test_the_launcher_puts_it_before_each_program(tmp_path, command, programs):
    """Where `piox load` (PIOX_LOAD_DRY_RUN) inserts piox-load-exec: before the word
    that is each segment's program, not an option's value; nowhere with --exe-as-is."""
    dry = {"PIOX_LOAD_DRY_RUN": "1", "PIOX_LOAD_BASE": str(tmp_path)}
    expected = list(command)
    for position in reversed(programs):
        expected.insert(position, str(EXEC))
    for options, want in (((), expected), (("--exe-as-is",), command)):
        done = piox_load(command, env=dry, options=options)
        assert done.returncode == 0, done.stderr
        line = done.stdout.splitlines()[1]
        assert line.endswith(" " + " ".join(want)), (options, line)
