"""ROMIO's whole C test suite on the lockless FUSE fixture, under piox and stock MPICH.

Every C program that ROMIO's test/runtests runs is run as runtests runs it (same
process count and arguments), one test per program, judged by ROMIO itself (rank 0
prints " No Errors"). The Fortran ones (fmisc, fcoll_test, pfcoll_test: *.f.in) are
reported as skipped: they need configure's Fortran substitutions and mpif77, not
plain mpicc.

Stock MPICH is the control, and its failures map where ROMIO takes fcntl locks
(call sites in src/mpi/romio of MPICH 4.0.2):
- data sieving writes lock the sieved extent whatever the atomicity
  (adio/common/ad_write_str.c, ADIOI_GEN_WriteStrided): noncontig, i_noncontig,
  and noncontig_coll/noncontig_coll2, whose non-interleaved collective writes fall
  back to independent strided writes (ad_write_coll.c). romio_ds_write=disable
  routes them to ad_write_str_naive.c, which locks only in atomic mode;
- atomic mode locks every access, reads included, even with data sieving off
  (mpi-io/read.c, write.c, iread.c, iwrite.c, *_sh.c, ad_read_str*.c,
  ad_write_str*.c): atomicity;
- the shared file pointer lives in a hidden file locked on every access
  (ad_get_sh_fp.c, ad_set_sh_fp.c): shared_fp, ordered_fp.
Data sieving reads lock only in atomic mode, so romio_ds_read=disable changes
nothing here; set_atomicity, set_size and preallocate take no lock (misc passes).
piox must neutralise the first two itself (atomic mode: its range locks, and no
fcntl from ROMIO on a lockless file system); it already owns the third.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import describe  # noqa: E402

RUNS = romio.listed_runs()
FORTRAN = {name for name in RUNS
           if (romio.test_source_dir() / f"{name}.f.in").exists()}
RUN_TIMEOUT = 120

# Stock MPICH aborts with "File locking failed" on the lockless fixture ...
SIEVING_WRITERS = ["noncontig", "i_noncontig", "noncontig_coll", "noncontig_coll2"]
ALWAYS_LOCKING = ["atomicity", "shared_fp", "ordered_fp"]
STOCK_LOCKING_FAILURES = SIEVING_WRITERS + ALWAYS_LOCKING
# ... and passes the rest: they take no lock.
STOCK_PASSES = sorted(set(RUNS) - FORTRAN - set(STOCK_LOCKING_FAILURES))
NO_WRITE_SIEVING = "romio_ds_write disable\n"
ATOMICITY_RANKS = [2, 4, 8]


def run_listed(mpirun, romio_tests, program, directory, log_dir, **kwargs):
    return romio_tests.run(mpirun, program, directory, log_dir, timeout=RUN_TIMEOUT, **kwargs)


def assert_passes(result, printed):
    assert romio.passed(result), describe(result, printed)


def assert_aborts_on_locking(result, printed):
    assert result.returncode != 0, describe(result, printed)
    assert romio.LOCKING_FAILURE in printed, describe(result, printed)


@pytest.fixture
def hints_file(tmp_path):
    def write(text):
        path = tmp_path / "romio_hints"
        path.write_text(text)
        return path
    return write


@pytest.mark.parametrize("program", sorted(RUNS))
def test_piox_passes_romio_test_on_lockless(mpirun, romio_tests, lockless_dir, tmp_path,
                                            program):
    if program in FORTRAN:
        pytest.skip(f"{program} is Fortran (.f.in): needs configure and mpif77, not mpicc")
    result, printed = run_listed(mpirun, romio_tests, program, lockless_dir,
                                 tmp_path / "logs", piox=True)
    assert_passes(result, printed)


@pytest.mark.parametrize("program", STOCK_LOCKING_FAILURES)
def test_stock_mpich_aborts_on_lockless(mpirun, romio_tests, lockless_dir, tmp_path, program):
    result, printed = run_listed(mpirun, romio_tests, program, lockless_dir,
                                 tmp_path / "logs", piox=False)
    assert_aborts_on_locking(result, printed)


@pytest.mark.parametrize("program", STOCK_PASSES)
def test_stock_mpich_passes_lock_free_programs_on_lockless(mpirun, romio_tests, lockless_dir,
                                                           tmp_path, program):
    """The control: these take no lock, so the fixture alone does not fail them."""
    result, printed = run_listed(mpirun, romio_tests, program, lockless_dir,
                                 tmp_path / "logs", piox=False)
    assert_passes(result, printed)


@pytest.mark.parametrize("program", STOCK_LOCKING_FAILURES)
def test_stock_mpich_without_write_sieving_on_lockless(mpirun, romio_tests, lockless_dir,
                                                       tmp_path, hints_file, program):
    """romio_ds_write=disable removes the sieving locks, not the atomic-mode or
    shared-pointer ones."""
    env = {"ROMIO_HINTS": str(hints_file(NO_WRITE_SIEVING))}
    result, printed = run_listed(mpirun, romio_tests, program, lockless_dir,
                                 tmp_path / "logs", piox=False, env=env)
    if program in SIEVING_WRITERS:
        assert_passes(result, printed)
    else:
        assert_aborts_on_locking(result, printed)


# ROMIO's atomicity.c (runtests uses 4 ranks; it recommends 8 or more).

@pytest.mark.parametrize("nprocs", ATOMICITY_RANKS, ids=lambda n: f"{n}ranks")
def test_romio_atomicity_stock_on_normal_dir(mpirun, romio_tests, tmp_path, nprocs):
    directory = tmp_path / "data"
    directory.mkdir()
    result, printed = run_listed(mpirun, romio_tests, "atomicity", directory,
                                 tmp_path / "logs", nprocs=nprocs, piox=False)
    assert_passes(result, printed)


@pytest.mark.parametrize("nprocs", ATOMICITY_RANKS, ids=lambda n: f"{n}ranks")
def test_romio_atomicity_stock_aborts_on_lockless(mpirun, romio_tests, lockless_dir, tmp_path,
                                                  nprocs):
    result, printed = run_listed(mpirun, romio_tests, "atomicity", lockless_dir,
                                 tmp_path / "logs", nprocs=nprocs, piox=False)
    assert_aborts_on_locking(result, printed)


@pytest.mark.parametrize("nprocs", ATOMICITY_RANKS, ids=lambda n: f"{n}ranks")
def test_romio_atomicity_piox(mpirun, romio_tests, any_dir, tmp_path, nprocs):
    result, printed = run_listed(mpirun, romio_tests, "atomicity", any_dir,
                                 tmp_path / "logs", nprocs=nprocs, piox=True)
    assert_passes(result, printed)
