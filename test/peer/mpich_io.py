"""MPICH's own MPI-IO tests (test/mpi/io in MPICH's source), as peer tests for piox.

Besides ROMIO's suite (romio.py), MPICH's source has a test suite of its own; its io/
folder holds MPI-IO programs, among them nonblocking twins (i_coll_test,
i_noncontig_coll, ...) of ROMIO's collective tests. They use MPICH's MTest harness
(util/mtest.c: MTest_Init, then MTest_Finalize prints " No Errors" on rank 0), built
here with each program, against a configuration header written for this machine
in place of the one configure would make. The programs name their files relative
to the working directory ("testfile", "test.ord"), so they run in the directory given.

Importable from pytest files (conftest puts test/peer on sys.path); import mpich_io.
"""
from dataclasses import dataclass
from pathlib import Path

import romio

# What configure finds on Linux with MPICH 4, as far as the harness asks
# (include/mpitestconf.h.in); no thread package: util/mtest_single.c.
TEST_CONFIGURATION = """\
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_LONG 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_IO 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
"""
HARNESS = ["util/mtest.c", "util/mtest_common.c", "util/mtest_single.c"]


def suite_dir():
    return romio.mpich_source() / "test" / "mpi"


@dataclass(frozen=True)
class ListedRun:
    """One line of io/testlist.in: `program nprocs [key=value ...]`."""
    program: str
    nprocs: int
    args: tuple  # from its arg= options


def listed_runs(source_dir=None):
    """The io suite's own list of runs, by program name."""
    runs = {}
    for line in (Path(source_dir or suite_dir()) / "io" / "testlist.in").read_text().splitlines():
        words = line.split()
        if len(words) >= 2 and not line.startswith("#"):
            args = tuple(w[len("arg="):] for w in words[2:] if w.startswith("arg="))
            runs[words[0]] = ListedRun(words[0], int(words[1]), args)
    return runs


class MpichIoTests:
    """Builds io/ programs with the harness into build_dir, once, again when the
    source is newer; runs them as the suite lists them."""

    def __init__(self, build_dir, source_dir=None, mpicc=romio.MPICC):
        self.build_dir = Path(build_dir)
        self.source_dir = Path(source_dir or suite_dir())
        self.mpicc = mpicc
        self.runs = listed_runs(self.source_dir)

    def executable(self, name):
        source = self.source_dir / "io" / f"{name}.c"
        target = self.build_dir / name
        if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
            self.build_dir.mkdir(parents=True, exist_ok=True)
            configuration = self.build_dir / "mpitestconf.h"
            if not configuration.exists() or configuration.read_text() != TEST_CONFIGURATION:
                configuration.write_text(TEST_CONFIGURATION)
            romio.compile_program(target, [self.mpicc, "-O2", "-w", f"-I{self.build_dir}",
                                           f"-I{self.source_dir / 'include'}", source,
                                           *(self.source_dir / h for h in HARNESS)])
        return target

    def run(self, mpirun, name, directory, log_dir, **kwargs):
        """Runs `name` with its listed process count and arguments in `directory` (its
        files go there) with mpirun (conftest's MpiRun; kwargs go to it), each rank's
        stderr kept in log_dir; returns the result and all that was printed."""
        listed = self.runs[name]
        argv = ["env", "-C", str(directory), self.executable(name), *listed.args]
        result = mpirun(listed.nprocs, romio.stderr_to_files(argv, log_dir), **kwargs)
        return result, romio.output(result) + romio.logged_stderr(log_dir)
