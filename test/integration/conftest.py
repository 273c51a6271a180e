"""Fixtures for the integration tests: real mpiexec, real file systems.

The tests run against a configured build tree (default _build/mpich, override with
PIOX_BUILD_DIR). scripts/test builds it before running pytest.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PIOX_BUILD_DIR", REPO / "_build" / "mpich"))
PIOX_LIB = Path(os.environ.get("PIOX_LIB", BUILD / "pmpi_shim" / ".libs" / "libpiox.so"))
PROGRAMS = BUILD / "test" / "programs"
LOCKLESS_FS = BUILD / "test" / "fixtures" / "lockless_fs" / "piox-lockless-fs"
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec")
DEFAULT_TIMEOUT = 300


class MpiRun:
    """Runs an MPI program with `mpiexec -n N`, with or without libpiox preloaded."""

    def __init__(self, launcher=MPIEXEC, library=PIOX_LIB, env_flag="-genv"):
        self.launcher = launcher
        self.library = library
        self.env_flag = env_flag

    def command(self, n, argv, piox=True, env=None):
        cmd = [self.launcher, "-n", str(n)]
        settings = dict(env or {})
        if piox:
            settings["LD_PRELOAD"] = str(self.library)
        for key, value in settings.items():
            cmd += self._env_args(key, value)
        return cmd + [str(a) for a in argv]

    def _env_args(self, key, value):
        if self.env_flag == "-x":  # Open MPI
            return ["-x", f"{key}={value}"]
        return [self.env_flag, key, str(value)]

    def __call__(self, n, argv, piox=True, env=None, timeout=DEFAULT_TIMEOUT, check=False):
        cmd = self.command(n, argv, piox=piox, env=env)
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                env=_clean_env())
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} exited {result.returncode}\n"
                        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        return result


def _clean_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


@pytest.fixture(scope="session")
def mpirun():
    if not PIOX_LIB.exists():
        pytest.fail(f"{PIOX_LIB} is missing: build first (scripts/test does)")
    return MpiRun()


@pytest.fixture(scope="session")
def program():
    def find(name):
        path = PROGRAMS / name
        if not path.exists():
            pytest.fail(f"test program {path} is missing: run `make check` in {BUILD}")
        return path
    return find


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
        subprocess.run(["fusermount3", "-u", str(mountpoint)], check=False, timeout=30)
        shutil.rmtree(backing, ignore_errors=True)
        shutil.rmtree(mountpoint, ignore_errors=True)


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
