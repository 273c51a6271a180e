"""piox linked into the program statically, with `ld --wrap` (libpiox.a and
`piox-config --static-libs`), instead of preloaded: no LD_PRELOAD at run time, and
the shared-pointer and atomic-mode tests pass on the lockless fixture, where stock
MPICH aborts. The program is built from the same sources as the preloaded tests',
with the installed piox-config (scripts/setup installs into _build/install).
"""
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from test_shared_pointer import passed, records_check

SOURCES = REPO / "test" / "programs"
PIOX_CONFIG = REPO / "_build" / "install" / "bin" / "piox-config"
RANKS = 4


def build_static(name, out_dir):
    if not PIOX_CONFIG.exists():
        pytest.fail(f"{PIOX_CONFIG} is missing: scripts/setup installs it")
    flags = subprocess.run([str(PIOX_CONFIG), "--static-libs"], capture_output=True,
                           text=True, check=True).stdout.split()
    obj, exe = out_dir / f"{name}.o", out_dir / name
    subprocess.run(["mpicc", "-c", "-o", str(obj), str(SOURCES / f"{name}.c")], check=True,
                   capture_output=True)
    subprocess.run(["mpicxx", "-o", str(exe), str(obj), *flags], check=True, capture_output=True)
    return exe


@pytest.fixture(scope="module")
def static_programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("static")
    return {name: build_static(name, out) for name in ["records", "atomic_overlap"]}


def test_piox_is_inside(static_programs):
    for exe in static_programs.values():
        symbols = subprocess.run(["nm", str(exe)], capture_output=True, text=True).stdout
        assert " T __wrap_MPI_File_write_shared" in symbols
        libraries = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
        assert "libpiox" not in libraries


@pytest.mark.parametrize("mode", ["write_shared", "write_ordered", "write_mixed"])
def test_shared_pointer_on_lockless_fs(mode, lockless_dir, mpirun, static_programs, program):
    path = lockless_dir / "records"
    result = mpirun(RANKS, [static_programs["records"], path, mode, 1000, 5], piox=False,
                    env={"PIOX_DEBUG": "1"})
    passed(result)
    assert "shared file pointer over shm" in result.stderr  # piox's, not ROMIO's
    ordered = ["ordered"] if mode == "write_ordered" else []
    records_check(program, path, "records", RANKS, 1000, 5, *ordered)


def test_stock_mpich_aborts_there(lockless_dir, mpirun, program):
    """The control: the same program without piox cannot use a shared pointer there."""
    path = lockless_dir / "records"
    result = mpirun(RANKS, [program("records"), path, "write_shared", 10, 5], piox=False,
                    timeout=120)
    assert result.returncode != 0


@pytest.mark.parametrize("variant", [[], ["--pointer", "--collective"], ["--nonblocking"]])
def test_atomic_mode_on_lockless_fs(variant, lockless_dir, mpirun, static_programs):
    result = mpirun(RANKS, [static_programs["atomic_overlap"], lockless_dir, "--rounds", 30,
                            *variant], piox=False)
    assert result.returncode == 0 and " No Errors" in result.stdout, result.stdout + result.stderr
    assert "violations=0" in result.stdout
