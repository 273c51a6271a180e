"""A strided write that fails part-way releases its lock (ROMIO patch 0015).

test/programs/sieve_write_error.c: rank 0, whose files may not grow past 1 MiB
(RLIMIT_FSIZE), writes a vector view spanning 8 MiB and must get an error; then
rank 1 writes 16 ints of the same span, which locks bytes rank 0 locked, and must
return with its ints in the file. Three ways ROMIO takes that lock: data sieving
(the default), atomic mode with sieving, atomic mode without (naive).

The patched libromio must pass through both of its drivers (piox: and ufs:). The
ROMIO inside stock MPICH 4.0.2 is the anchor: it leaves the lock held and rank 1's
write waits until the program's alarm ends the job (10 s), in every one of the
three. piox by preload on a normal directory leaves independent non-atomic writes
to that ROMIO, and after one fails it releases the process's fcntl locks on the
file (mpiio::release_locks_after_failed_write), so it must pass too.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, REPO, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

SOURCE = REPO / "test" / "programs" / "sieve_write_error.c"
OUT = BUILD / "test" / "peer" / "romio-write-errors"
MODES = {"sieving": [], "atomic": ["atomic"], "atomic-naive": ["atomic", "naive"]}
HANG = "waited 10 s for bytes a failed write left locked"


def run(mpirun, program, tmp_path, mode, force=None):
    env = {"ROMIO_FSTYPE_FORCE": force} if force else None
    return mpirun(2, [program, tmp_path, *MODES[mode]], piox=False, env=env, timeout=120)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("force", ["piox:", "ufs:"])
def test_a_failed_write_leaves_no_lock(mpirun, tmp_path, mode, force):
    romio.standalone_lib()
    program = romio.build_program(SOURCE, OUT / "libromio" / "sieve_write_error",
                                  romio.STANDALONE_LINK_FLAGS)
    result = run(mpirun, program, tmp_path, mode, force)
    assert result.returncode == 0 and romio.passed(result), describe(result)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_stock_romio_leaves_the_lock_held(mpirun, tmp_path, mode):
    """The anchor: what the test above would see without patch 0015."""
    program = romio.build_program(SOURCE, OUT / "stock" / "sieve_write_error")
    result = run(mpirun, program, tmp_path, mode)
    assert result.returncode != 0 and HANG in result.stderr, describe(result)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_preload_leaves_no_lock(mpirun, tmp_path, mode):
    """piox by preload over stock MPICH, on a normal directory: with sieving the
    write goes to the ROMIO inside libmpich (the anchor above hangs there), in
    atomic mode piox moves it under its own locks."""
    program = romio.build_program(SOURCE, OUT / "stock" / "sieve_write_error")
    result = mpirun(2, [program, tmp_path, *MODES[mode]], timeout=120)
    assert result.returncode == 0 and romio.passed(result), describe(result)
