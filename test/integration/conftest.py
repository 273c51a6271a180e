"""Fixtures for the integration tests: real mpiexec, real file systems.

The tests run against a configured build tree (default _build/mpich, override with
PIOX_BUILD_DIR). scripts/test builds it before running pytest.
"""
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "fixtures" / "ceph"))
sys.path.insert(0, str(REPO / "test" / "peer"))
import ceph_cluster as ceph  # noqa: E402
import mpich_io  # noqa: E402
import romio  # noqa: E402
BUILD = Path(os.environ.get("PIOX_BUILD_DIR", REPO / "_build" / "mpich"))
PIOX_LIB = Path(os.environ.get("PIOX_LIB", BUILD / "pmpi_shim" / ".libs" / "libpiox.so"))
PROGRAMS = BUILD / "test" / "programs"
PROGRAM_SOURCES = REPO / "test" / "programs"  # also the Python clients, run from here
PEER_BUILD = BUILD / "test" / "peer"  # ROMIO's test programs (test/peer/romio.py)
MPICH_IO_BUILD = PEER_BUILD / "mpich_io"  # MPICH's own (test/peer/mpich_io.py)
LOCKLESS_FS = BUILD / "test" / "fixtures" / "lockless_fs" / "piox-lockless-fs"
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec")
OPENMPI_BUILD = Path(os.environ.get("PIOX_OPENMPI_BUILD_DIR", REPO / "_build" / "openmpi"))
OPENMPI_LIB = OPENMPI_BUILD / "pmpi_shim" / ".libs" / "libpiox.so"
DEFAULT_TIMEOUT = 300


class MpiRun:
    """Runs an MPI program with `mpiexec -n N`, with or without libpiox preloaded.

    hosts=["a", "b"] presents the machine as several nodes: the ranks are split into
    consecutive groups, one per name, each with its own PIOX_HOSTNAME.
    """

    def __init__(self, launcher=MPIEXEC, library=PIOX_LIB, env_flag="-genv", local_env_flag="-env",
                 extra_args=(), build=BUILD):
        self.launcher = launcher
        self.library = library
        # libpiox loads libdli for locality from where it was installed first: the tests
        # use the build tree's, so that they test what was just built.
        self.dli_library = Path(build) / "locality" / ".libs" / "libdli.so.0"
        self.env_flag = env_flag
        self.local_env_flag = local_env_flag
        self.extra_args = list(extra_args)

    def command(self, n, argv, piox=True, env=None, hosts=None):
        cmd = [self.launcher] + self.extra_args
        settings = dict(env or {})
        if piox:
            settings["LD_PRELOAD"] = str(self.library)
            settings.setdefault("PIOX_DLI_LIBRARY", str(self.dli_library))
        argv = [str(a) for a in argv]
        if not hosts:
            for key, value in settings.items():
                cmd += self._env_args(self.env_flag, key, value)
            return cmd + ["-n", str(n)] + argv
        # Several program segments (MPMD). Every segment gets every setting: Open MPI
        # applies -x given before the first segment to that segment only.
        for i, host in enumerate(hosts):
            share = n // len(hosts) + (1 if i < n % len(hosts) else 0)
            if i:
                cmd.append(":")
            cmd += ["-n", str(share)]
            for key, value in {**settings, "PIOX_HOSTNAME": host}.items():
                cmd += self._env_args(self.local_env_flag, key, value)
            cmd += argv
        return cmd

    @staticmethod
    def _env_args(flag, key, value):
        if flag == "-x":  # Open MPI
            return ["-x", f"{key}={value}"]
        return [flag, key, str(value)]

    def __call__(self, n, argv, piox=True, env=None, hosts=None, timeout=DEFAULT_TIMEOUT,
                 check=False):
        cmd = self.command(n, argv, piox=piox, env=env, hosts=hosts)
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                env=_clean_env(), errors="replace")
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(cmd)}\n{describe(result)}")
        return result


def describe(result, printed=None):
    """A finished run (subprocess.CompletedProcess) for an assertion message: exit
    status, stdout, stderr and, when given, what the ranks printed to files
    (romio.stderr_to_files)."""
    text = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    if printed is not None:
        text += f"\nranks' stderr files:\n{printed}"
    return text


def _clean_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


@pytest.fixture(scope="session")
def mpirun():
    if not PIOX_LIB.exists():
        pytest.fail(f"{PIOX_LIB} is missing: build first (scripts/test does)")
    return MpiRun()


def _program_finder(programs, build):
    def find(name):
        path = programs / name
        if not path.exists():
            pytest.fail(f"test program {path} is missing: run `make check` in {build}")
        return path
    return find


@pytest.fixture(scope="session")
def program():
    return _program_finder(PROGRAMS, BUILD)


@pytest.fixture(scope="session")
def hdf5_program(tmp_path_factory):
    """Builds test/programs/NAME.c with h5pcc.mpich (parallel HDF5 on MPICH), once a
    session: hdf5_program("hdf5_client") is the executable. h5pcc leaves its object
    file in the working directory: it runs in the output's."""
    compiler = shutil.which("h5pcc.mpich")
    if compiler is None:
        pytest.fail("h5pcc.mpich is missing: scripts/setup installs libhdf5-mpich-dev")
    directory = tmp_path_factory.mktemp("hdf5")

    @functools.lru_cache(maxsize=None)
    def build(name):
        output = directory / name
        result = subprocess.run([compiler, "-I", str(PROGRAM_SOURCES), "-o", str(output),
                                 str(PROGRAM_SOURCES / f"{name}.c")],
                                capture_output=True, text=True, timeout=300, cwd=directory)
        assert result.returncode == 0, result.stderr
        return output
    return build


@pytest.fixture(scope="session")
def romio_tests():
    """ROMIO's own test programs from MPICH's source, built with mpicc on first use."""
    return romio.RomioTests(PEER_BUILD)


@pytest.fixture(scope="session")
def mpich_io_tests():
    """MPICH's own MPI-IO test programs (test/mpi/io), built with mpicc on first use."""
    return mpich_io.MpichIoTests(MPICH_IO_BUILD)


@pytest.fixture(scope="session")
def openmpi_run():
    """Like mpirun, for Open MPI and the libpiox built for it (_build/openmpi)."""
    if not shutil.which("mpirun.openmpi") or not OPENMPI_LIB.exists():
        pytest.skip("Open MPI or its libpiox build (_build/openmpi) is not installed")
    # Open MPI's -x exports to every rank; per-segment settings use the same flag.
    return MpiRun(launcher="mpirun.openmpi", library=OPENMPI_LIB, env_flag="-x",
                  local_env_flag="-x", extra_args=["--allow-run-as-root", "--oversubscribe"],
                  build=OPENMPI_BUILD)


@pytest.fixture(scope="session")
def openmpi_program():
    return _program_finder(OPENMPI_BUILD / "test" / "programs", OPENMPI_BUILD)


@pytest.fixture(scope="session")
def lockless_mount():
    """A mounted lockless FUSE file system: every fcntl/flock lock fails with ENOLCK."""
    if not LOCKLESS_FS.exists():
        pytest.fail(f"{LOCKLESS_FS} is missing: run `make check` in {BUILD}")
    backing = Path(tempfile.mkdtemp(prefix="piox-lockless-backing-"))
    mountpoint = Path(tempfile.mkdtemp(prefix="piox-lockless-mnt-"))
    subprocess.run([str(LOCKLESS_FS), str(backing), str(mountpoint)], check=True, timeout=30)
    try:
        yield mountpoint
    finally:
        _unmount(mountpoint)
        shutil.rmtree(backing, ignore_errors=True)
        os.rmdir(mountpoint)  # fails, rather than deleting through a live mount


def _unmount(mountpoint, attempts=50):
    """fusermount3 -u, retried: right after a job aborts, its processes may still
    hold files open on the mount for a moment ("Device or resource busy")."""
    for _ in range(attempts):
        if subprocess.run(["fusermount3", "-u", str(mountpoint)], capture_output=True,
                          timeout=30).returncode == 0:
            return
        time.sleep(0.2)
    pytest.fail(f"cannot unmount {mountpoint}")


@pytest.fixture
def lockless_dir(lockless_mount, request):
    """A fresh directory on the lockless file system for one test."""
    path = Path(tempfile.mkdtemp(prefix="t-", dir=lockless_mount))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(params=["normal", "lockless"])
def any_dir(request, tmp_path):
    """Each test runs once on a normal directory and once on the lockless fixture."""
    if request.param == "normal":
        return tmp_path
    return request.getfixturevalue("lockless_dir")


@pytest.fixture
def no_force_from_outside(monkeypatch):
    """Only the test chooses ROMIO's file system type: mpiexec would pass a
    ROMIO_FSTYPE_FORCE from the caller's environment on to every rank.
    Modules take it with pytestmark = pytest.mark.usefixtures(...)."""
    monkeypatch.delenv("ROMIO_FSTYPE_FORCE", raising=False)


@pytest.fixture(scope="session")
def ceph_cluster():
    """A real Ceph cluster (test/fixtures/ceph): one mon, OSDs 0-2 on the CRUSH hosts
    nodeA-nodeC, an MDS and a CephFS mounted with ceph-fuse. One per session, under a
    tmp dir; stopped (every daemon killed, unmounted, removed) however the session ends."""
    reason = ceph.missing_requirements()
    if reason:
        pytest.skip(reason)
    cluster = ceph.CephCluster(tempfile.mkdtemp(prefix="piox-ceph-"))
    # SIGTERM would end pytest without running this fixture's teardown; as an
    # interrupt it unwinds through the finally below.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def locality_ceph_files(ceph_cluster):
    """Files on the Ceph cluster for the locality tests (locality_shares.ceph_mapped_files)."""
    import locality_shares
    return locality_shares.ceph_mapped_files(ceph_cluster)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def loader_tree(tmp_path_factory):
    """Parallel loading's generated cases (loader_cases.py), built once per session."""
    import loader_cases
    root = tmp_path_factory.mktemp("loader-cases")
    return {"root": root, "cases": loader_cases.build(root)}
