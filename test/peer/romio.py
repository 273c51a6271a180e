"""ROMIO's own test programs, built from MPICH's source, as peer tests for piox.

MPICH ships ROMIO's test suite in its source tree (src/mpi/romio/test/), not in
the Debian binary packages; scripts/fetch-mpich-source fetches and unpacks the
source once. This module builds single test programs from it with mpicc, tells
how ROMIO's runtests script runs each one, and judges a run the way ROMIO does
(rank 0 prints " No Errors"). It also builds the fcntl interposer
(enolck_fcntl.c) and watches directories for ROMIO's hidden shared file pointer
files, which piox must never create.

Importable from pytest files: sys.path.insert(0, <repo>/test/peer); import romio.
"""
import ctypes
import functools
import os
import re
import shlex
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import romio_builds

REPO = Path(__file__).resolve().parents[2]
FETCH_SCRIPT = REPO / "scripts" / "fetch-mpich-source"
INTERPOSER_SOURCE = Path(__file__).resolve().parent / "enolck_fcntl.c"
MPICC = os.environ.get("MPICC", "mpicc")

SUCCESS_MARKER = " No Errors"
LOCKING_FAILURE = "File locking failed"
# ROMIO names it .<file>.shfp.<random>.<pid> next to the file (adio/common/shfp_fname.c);
# matching any ".shfp" keeps the check valid if the suffix ever changes.
SHFP_MARKER = ".shfp"
FILENAME_PLACEHOLDER = "$FILENAME"
SRCDIR_PLACEHOLDER = "$srcdir"  # syshints reads $srcdir/test_hintfile

# The standalone libromio of scripts/build-romio (ROMIO with the ad_piox driver),
# and the flags that link a program with it before the libmpich mpicc adds (or
# mpif90's libmpichfort). --no-as-needed: Debian's gcc links --as-needed, which
# drops libromio from a program whose own code calls no MPI_File_* routine (a
# Fortran one: its calls go through libmpichfort), and the program then runs the
# ROMIO inside libmpich without a word.
STANDALONE_LIB = romio_builds.libromio(romio_builds.PATCHED_PREFIX)
STANDALONE_LINK_FLAGS = [f"-L{STANDALONE_LIB.parent}", f"-Wl,-rpath,{STANDALONE_LIB.parent}",
                         "-Wl,--push-state,--no-as-needed", "-lromio", "-Wl,--pop-state"]

# Substitutions configure makes in the few tests shipped as <name>.c.in.
CONFIGURE_SUBSTITUTIONS = {"LL": "lld"}


@functools.lru_cache(maxsize=None)
def mpich_source():
    """The unpacked MPICH source tree (fetched on first use, which needs root)."""
    result = subprocess.run([str(FETCH_SCRIPT)], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"{FETCH_SCRIPT} failed ({result.returncode}):\n{result.stderr}")
    return Path(result.stdout.strip())


def test_source_dir():
    return mpich_source() / "src" / "mpi" / "romio" / "test"


@dataclass(frozen=True)
class ListedRun:
    """One `$mpirun -np N ./program args` line of ROMIO's runtests.in."""
    program: str
    nprocs: int
    args: tuple  # may contain FILENAME_PLACEHOLDER and SRCDIR_PLACEHOLDER

    def argv(self, executable, filename, source_dir):
        def expand(arg):
            if arg == FILENAME_PLACEHOLDER:
                return str(filename)
            return arg.replace(SRCDIR_PLACEHOLDER, str(source_dir))
        return [str(executable)] + [expand(a) for a in self.args]


_RUN_LINE = re.compile(r"^\s*\$mpirun\s+-np\s+(\d+)\s+\./(\S+)(.*)$")


def listed_runs(source_dir=None):
    """ROMIO's own list of test runs (commented-out lines skipped), by program name."""
    runtests = Path(source_dir or test_source_dir()) / "runtests.in"
    runs = {}
    for line in runtests.read_text().splitlines():
        match = _RUN_LINE.match(line)
        if match:
            nprocs, program, rest = match.groups()
            runs[program] = ListedRun(program, int(nprocs), tuple(shlex.split(rest)))
    return runs


class RomioTests:
    """Builds ROMIO test programs into build_dir, once, rebuilding when the source is newer.

    link_flags go on mpicc's command line after the source, so before the libmpich
    that mpicc adds (e.g. a standalone libromio: -L<lib> -Wl,-rpath,<lib> -lromio).
    Programs built with other flags need their own build_dir.
    """

    def __init__(self, build_dir, source_dir=None, mpicc=MPICC, link_flags=()):
        self.build_dir = Path(build_dir)
        self.source_dir = Path(source_dir or test_source_dir())
        self.mpicc = mpicc
        self.link_flags = tuple(link_flags)
        self.runs = listed_runs(self.source_dir)

    def executable(self, name):
        source = self._source(name)
        target = self.build_dir / name
        if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
            self.build_dir.mkdir(parents=True, exist_ok=True)
            compile_program(target, [self.mpicc, "-O2", source, *self.link_flags, "-lm"])
        return target

    def argv(self, name, filename):
        """The command line runtests uses for `name`, with `filename` as its test file."""
        return self.runs[name].argv(self.executable(name), filename, self.source_dir)

    def run(self, mpirun, name, directory, log_dir, nprocs=None, **kwargs):
        """Runs `name` as runtests does on directory/testfile with mpirun (conftest's
        MpiRun; kwargs go to it), each rank's stderr kept in log_dir (an abort can lose
        what mpiexec would forward); returns the result and all that was printed."""
        nprocs = nprocs or self.runs[name].nprocs
        argv = stderr_to_files(self.argv(name, Path(directory) / "testfile"), log_dir)
        result = mpirun(nprocs, argv, **kwargs)
        return result, output(result) + logged_stderr(log_dir)

    def _source(self, name):
        plain = self.source_dir / f"{name}.c"
        if plain.exists():
            return plain
        template = self.source_dir / f"{name}.c.in"
        if not template.exists():
            raise FileNotFoundError(f"no ROMIO test {name} in {self.source_dir}")
        # Sources stay untouched: the configured copy goes next to the executables.
        configured = self.build_dir / f"{name}.c"
        if not configured.exists() or configured.stat().st_mtime < template.stat().st_mtime:
            self.build_dir.mkdir(parents=True, exist_ok=True)
            configured.write_text(_configure(template.read_text(), template))
        return configured


def _configure(text, template):
    def substitute(match):
        key = match.group(1)
        if key not in CONFIGURE_SUBSTITUTIONS:
            raise ValueError(f"{template}: no value known for @{key}@")
        return CONFIGURE_SUBSTITUTIONS[key]
    return re.sub(r"@([A-Za-z_][A-Za-z0-9_]*)@", substitute, text)


def compile_program(target, command):
    """Runs compiler command with `-o target`, via a temporary name so an
    interrupted build never leaves a half-written target behind."""
    partial = target.with_name(target.name + ".partial")
    command = [str(command[0]), "-o", str(partial)] + [str(c) for c in command[1:]]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    partial.replace(target)


def standalone_lib():
    """STANDALONE_LIB; the calling test fails when scripts/build-romio has not built it."""
    if not STANDALONE_LIB.exists():
        pytest.fail(f"{STANDALONE_LIB} is missing: run scripts/build-romio (scripts/setup does)")
    return STANDALONE_LIB


def build_program(source, target, link_flags=()):
    """One C program (piox's test/programs style: headers beside it) built with
    mpicc into target, again whenever the source or the standalone libromio is newer."""
    source, target = Path(source), Path(target)
    inputs = [source] + ([STANDALONE_LIB] if STANDALONE_LIB.exists() else [])
    if not target.exists() or target.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        target.parent.mkdir(parents=True, exist_ok=True)
        compile_program(target, [MPICC, "-O2", f"-I{source.parent}", source, *link_flags,
                          "-ldl", "-lpthread"])
    return target


def check_loads_standalone_first(program):
    """program, linked with STANDALONE_LINK_FLAGS, names this build's libromio itself
    (NEEDED, run path) and loads it before any MPICH library, so that the dynamic
    linker resolves every MPI_File_* and PMPI_File_* symbol there, whoever calls it."""
    dynamic = subprocess.run(["readelf", "-d", str(program)], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic)
    assert any(n.startswith("libromio.so") for n in needed), needed
    assert str(STANDALONE_LIB.parent) in dynamic, dynamic  # the rpath: this build, not another
    resolved = subprocess.run(["ldd", str(program)], capture_output=True, text=True,
                              check=True).stdout
    assert f"{STANDALONE_LIB.parent}/libromio.so" in resolved, resolved
    loaded = [line.split()[0] for line in resolved.splitlines() if "=>" in line]  # load order
    mpich = [i for i, name in enumerate(loaded) if name.startswith("libmpich")]
    romio_at = next(i for i, name in enumerate(loaded) if name.startswith("libromio.so"))
    assert mpich and romio_at < min(mpich), loaded


def build_interposer(build_dir, source=INTERPOSER_SOURCE):
    """An LD_PRELOAD interposer from test/peer, built as <its name>.so in build_dir:
    by default enolck_fcntl.c (fcntl record locks fail with ENOLCK)."""
    source = Path(source)
    target = Path(build_dir) / f"{source.stem}.so"
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        compile_program(target, ["gcc", "-O2", "-Wall", "-shared", "-fPIC", source, "-ldl"])
    return target


def output(result):
    return result.stdout + result.stderr


def passed(result):
    """ROMIO's verdict: clean exit and rank 0's " No Errors" line."""
    return result.returncode == 0 and SUCCESS_MARKER in result.stdout


# Each rank's stderr goes straight to <log dir>/stderr.<rank>: "$0" is the log
# dir and "$@" the program, so nothing in argv needs quoting.
_STDERR_TO_FILE = 'exec "$@" 2>"$0/stderr.${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-unknown}}"'


def stderr_to_files(argv, log_dir):
    """argv wrapped so that every rank writes its stderr to a file in log_dir.

    When a rank prints an error and calls MPI_Abort, mpiexec (MPICH's hydra) may
    tear the job down before forwarding what the rank printed: about one aborting
    run in sixty came back with exit 1 and no output at all. A file write is not
    lost that way. Read the files back with logged_stderr.
    """
    Path(log_dir).mkdir(parents=True, exist_ok=True)
    return ["sh", "-c", _STDERR_TO_FILE, str(log_dir)] + [str(a) for a in argv]


def logged_stderr(log_dir):
    return "".join(p.read_text(errors="replace") for p in sorted(Path(log_dir).glob("stderr.*")))


def shfp_names(names):
    return sorted(n for n in names if SHFP_MARKER in n)


class CreatedNames:
    """Names created in one directory while the context is open (inotify).

    Looking at the directory afterwards only finds leftovers; ROMIO deletes its
    .shfp file at close, so a run that made one and cleaned up would go unseen.
    inotify sees every creation made through this kernel, FUSE mounts included.
    """
    _IN_CREATE, _IN_MOVED_TO, _IN_Q_OVERFLOW = 0x100, 0x80, 0x4000
    _EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then the name

    def __init__(self, directory):
        self.directory = Path(directory)
        self.names = set()
        self._fd = -1

    def __enter__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        mask = self._IN_CREATE | self._IN_MOVED_TO
        if libc.inotify_add_watch(self._fd, os.fsencode(self.directory), mask) < 0:
            os.close(self._fd)
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {self.directory}")
        return self

    def __exit__(self, *exc):
        try:
            self._drain()
        finally:
            os.close(self._fd)
        return False

    def _drain(self):
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                _, mask, _, length = self._EVENT_HEADER.unpack_from(data, offset)
                offset += self._EVENT_HEADER.size
                if mask & self._IN_Q_OVERFLOW:
                    raise RuntimeError(f"inotify queue overflowed watching {self.directory}")
                name = data[offset:offset + length].split(b"\0", 1)[0]
                offset += length
                if name:
                    self.names.add(os.fsdecode(name))
