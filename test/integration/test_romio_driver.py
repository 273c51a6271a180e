"""ROMIO's whole C test suite under the ad_piox ROMIO driver, without libpiox.

scripts/build-romio builds a standalone libromio.so with the ad_piox driver
(adio/romio/ad_piox/): its SetLock takes piox byte-range locks instead of fcntl
locks. ROMIO's test programs (the list test_romio_suite.py runs, Fortran ones
skipped the same way) are linked with it before libmpich and run with stock
mpiexec, no LD_PRELOAD, and ROMIO_FSTYPE_FORCE=piox: so that every file goes
through ad_piox; each must pass, on the lockless FUSE fixture (every fcntl lock
fails with ENOLCK) and on a normal directory.

Anchors, so that passing means something:
- the same libromio on the plain (ufs) path still aborts on the fixture with
  "File locking failed" in atomicity and shared_fp, as stock MPICH does;
- atomicity under strace: no fcntl lock command with piox:, some without it;
- the programs really load the patched libromio, before libmpich.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

DRIVER_BUILD = BUILD / "test" / "peer" / "romio-driver"
FORCE_PIOX = {"ROMIO_FSTYPE_FORCE": "piox:"}

RUNS = romio.listed_runs()
FORTRAN = {name for name in RUNS
           if (romio.test_source_dir() / f"{name}.f.in").exists()}
RUN_TIMEOUT = 120
ALWAYS_LOCKING = ["atomicity", "shared_fp"]
# Failures of the standalone libromio itself, not of ad_piox: each fails the same
# way on the plain ufs path (test_standalone_libromio_failures_are_not_ad_piox),
# and passes with the ROMIO inside stock libmpich (test_romio_suite.py).
# (darray_read was one until patch 0012: its darray holds less than a block in a
# dimension, which ad_darray.c builds from an empty vector, and the standalone ROMIO
# flattened that wrong and failed MPI_File_set_view.)
STANDALONE_FAILURES = {
    # The error for disp=-1 has class MPI_ERR_ARG but not ROMIO's message
    # ("Invalid displacement argument"): outside MPICH, ROMIO has no way to give a
    # predefined class's code a message (MPICH 4.0.2's MPI_Add_error_code gets it
    # wrong for predefined classes; see patch 0008).
    "error": "Unexpected error message Invalid argument",
}
# fcntl commands that take, test or drop a record lock (F_SETLK64 and the like
# print as F_SETLK on 64-bit).
LOCK_COMMAND = re.compile(r"\bF_(SETLKW?|GETLK|OFD_[A-Z]+)\b")


@pytest.fixture(scope="session")
def driver_tests():
    romio.standalone_lib()
    return romio.RomioTests(DRIVER_BUILD, link_flags=romio.STANDALONE_LINK_FLAGS)


def run_listed(mpirun, tests, program, directory, log_dir, env=None):
    """Runs `program` as runtests does, stock mpiexec, no libpiox; each rank's
    stderr kept in log_dir (an abort can lose what mpiexec would forward)."""
    argv = romio.stderr_to_files(tests.argv(program, directory / "testfile"), log_dir)
    result = mpirun(tests.runs[program].nprocs, argv, piox=False, env=env, timeout=RUN_TIMEOUT)
    return result, romio.output(result) + romio.logged_stderr(log_dir)


@pytest.fixture(params=["lockless", "normal"])
def data_dir(request, tmp_path):
    if request.param == "lockless":
        return request.getfixturevalue("lockless_dir")
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.mark.parametrize("program", sorted(RUNS))
def test_romio_test_passes_with_ad_piox(mpirun, driver_tests, data_dir, tmp_path, program):
    if program in FORTRAN:
        pytest.skip(f"{program} is Fortran (.f.in): needs configure and mpif77, not mpicc")
    if program in STANDALONE_FAILURES:
        pytest.xfail(f"standalone libromio fails {program} on any path "
                     f"({STANDALONE_FAILURES[program]}), not ad_piox")
    result, printed = run_listed(mpirun, driver_tests, program, data_dir, tmp_path / "logs",
                                 env=FORCE_PIOX)
    assert romio.passed(result), describe(result, printed)


@pytest.mark.parametrize("program", sorted(STANDALONE_FAILURES))
@pytest.mark.parametrize("fstype", ["piox", "ufs"])
def test_standalone_libromio_failures_are_not_ad_piox(mpirun, driver_tests, tmp_path, program,
                                                      fstype):
    """The programs skipped above as xfail fail alike through ad_piox and plain ufs,
    with the same message; if one starts passing, drop it from STANDALONE_FAILURES."""
    directory = tmp_path / "data"
    directory.mkdir()
    result, printed = run_listed(mpirun, driver_tests, program, directory, tmp_path / "logs",
                                 env={"ROMIO_FSTYPE_FORCE": f"{fstype}:"})
    assert not romio.passed(result), describe(result, printed)
    assert STANDALONE_FAILURES[program] in printed, describe(result, printed)


@pytest.mark.parametrize("program", ALWAYS_LOCKING)
def test_fixture_still_bites_plain_path(mpirun, driver_tests, lockless_dir, tmp_path, program):
    """The same libromio, ufs path (no piox:): fcntl locks, so the fixture aborts it."""
    result, printed = run_listed(mpirun, driver_tests, program, lockless_dir, tmp_path / "logs")
    assert result.returncode != 0, describe(result, printed)
    assert romio.LOCKING_FAILURE in printed, describe(result, printed)


def traced_lock_commands(mpirun, tests, directory, tmp_path, env):
    """atomicity (4 ranks) under strace -f; the fcntl lock commands it made."""
    trace = tmp_path / "fcntl.trace"
    argv = tests.argv("atomicity", directory / "testfile")
    command = ["strace", "-f", "-qq", "-e", "trace=fcntl", "-o", str(trace)] + \
        mpirun.command(4, argv, piox=False, env=env)
    clean = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                            env=clean, errors="replace")
    assert romio.passed(result), describe(result)
    lines = trace.read_text(errors="replace").splitlines()
    assert any("fcntl(" in line for line in lines), "strace saw no fcntl call at all"
    return [line for line in lines if LOCK_COMMAND.search(line)]


def test_no_fcntl_locks_with_ad_piox(mpirun, driver_tests, lockless_dir, tmp_path):
    locks = traced_lock_commands(mpirun, driver_tests, lockless_dir, tmp_path, FORCE_PIOX)
    assert locks == []


def test_plain_path_takes_fcntl_locks(mpirun, driver_tests, tmp_path):
    """The anchor: the strace check does see ROMIO's fcntl locks when it takes them."""
    directory = tmp_path / "data"
    directory.mkdir()
    locks = traced_lock_commands(mpirun, driver_tests, directory, tmp_path, None)
    assert locks, "no fcntl lock command traced on the plain path"


def test_programs_link_patched_libromio_before_libmpich(driver_tests):
    romio.check_loads_standalone_first(driver_tests.executable("atomicity"))
