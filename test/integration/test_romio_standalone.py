"""What the standalone libromio must keep of the ROMIO inside MPICH (issue 15,
patch 0008): file error handlers and MPI_THREAD_MULTIPLE I/O.

Outside MPICH, ROMIO's default glue used to abort on any file error handler but
MPI_ERRORS_RETURN and had an empty thread lock. Each program here runs against
stock MPICH (the reference, which must pass too, so that the program asks only
what MPICH gives) and against scripts/build-romio's libromio, through ad_piox
(piox:) and through ufs (ufs:):
- test/programs/file_errhandlers.c: a user's handler is called once per error,
  with the file and the right class; the MPI_FILE_NULL handler sees a failed
  open; MPI_File_get_errhandler and MPI_Errhandler_free keep MPICH's reference
  counts (a wrong count trips an assertion inside libmpich). With "fatal",
  MPI_ERRORS_ARE_FATAL aborts the job.
- test/programs/thread_io.c: 4 threads per rank open, view, write and close
  files of their own and write one shared file at once; every byte is checked.
  Without the lock it fails some of its runs (seen: 2 of 6, "Attempt to free
  null pointer" in cb_config_list.c or torn flattened types).
- test/programs/memtype_order.c: memory types whose size, extent and true extent
  agree but whose bytes are not one block in order (an int taken twice; two ints
  reversed) move as their typemaps say: the portable iscontig that patch 0012 has
  ask the layout must not call them contiguous.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, REPO, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

PROGRAMS = REPO / "test" / "programs"
OUT = BUILD / "test" / "peer" / "romio-standalone"
RANKS = 2
# how each program is run: stock MPICH, or the libromio with a file system type
SETUPS = {"stock": None, "piox": "piox:", "ufs": "ufs:"}


def program(name, setup):
    if setup == "stock":
        return romio.build_program(PROGRAMS / f"{name}.c", OUT / "stock" / name)
    romio.standalone_lib()
    return romio.build_program(PROGRAMS / f"{name}.c", OUT / "libromio" / name,
                               romio.STANDALONE_LINK_FLAGS)


def run(mpirun, name, setup, tmp_path, *args):
    env = {"ROMIO_FSTYPE_FORCE": SETUPS[setup]} if SETUPS[setup] else None
    return mpirun(RANKS, [program(name, setup), tmp_path, *args], piox=False, env=env)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_user_file_error_handlers_are_called(mpirun, setup, tmp_path):
    result = run(mpirun, "file_errhandlers", setup, tmp_path)
    assert result.returncode == 0 and romio.passed(result), describe(result)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_errors_are_fatal_aborts(mpirun, setup, tmp_path):
    """Each rank's stderr goes to a file: hydra may tear an aborting job down
    before it forwards what the ranks printed (romio.stderr_to_files)."""
    env = {"ROMIO_FSTYPE_FORCE": SETUPS[setup]} if SETUPS[setup] else None
    argv = romio.stderr_to_files([program("file_errhandlers", setup), tmp_path, "fatal"],
                                 tmp_path / "logs")
    result = mpirun(RANKS, argv, piox=False, env=env)
    printed = result.stdout + result.stderr + romio.logged_stderr(tmp_path / "logs")
    assert result.returncode != 0, describe(result)
    assert "still running" not in printed, describe(result)
    assert "I/O error" in printed, describe(result, printed)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_threads_do_io_at_once(mpirun, setup, tmp_path):
    result = run(mpirun, "thread_io", setup, tmp_path)
    assert result.returncode == 0 and romio.passed(result), describe(result)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_memory_types_out_of_order_move_as_their_typemaps(mpirun, setup, tmp_path):
    result = run(mpirun, "memtype_order", setup, tmp_path)
    assert result.returncode == 0 and romio.passed(result), describe(result)
