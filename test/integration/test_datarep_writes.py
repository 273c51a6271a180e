"""Writes through a view whose data representation is external32, from a memory type
with holes (datarep_writes.c), every byte checked: big-endian ints in the file, the
holes untouched, the ints read back. With piox moving the data (atomic mode;
PIOX_LOCKLESS=yes; the lockless fixture) and passing it on, and "native" as the
control. piox's library path handed ROMIO packed bytes for such a memory type, which
ROMIO could not convert: the ints landed little-endian. And ROMIO 4.0.2's nonblocking
routines ignore external32 altogether; piox completes them with the blocking ones."""
import re

import pytest

from conftest import describe

RANKS = 2

SETTINGS = {
    "default": ({}, 0),
    "atomic": ({}, 1),
    "lockless-yes": ({"PIOX_LOCKLESS": "yes"}, 0),
}


def passed(result):
    assert result.returncode == 0 and "No Errors" in result.stdout, describe(result)


@pytest.mark.parametrize("datarep", ["native", "external32"])
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_datarep_writes(setting, datarep, any_dir, mpirun, program):
    env, atomic = SETTINGS[setting]
    passed(mpirun(RANKS, [program("datarep_writes"), any_dir, atomic, datarep], env=env))


def test_datarep_writes_stock_native(tmp_path, mpirun, program):
    """The anchor: stock MPICH passes the program with the native representation."""
    passed(mpirun(RANKS, [program("datarep_writes"), tmp_path, 1, "native"], piox=False))


def test_stock_romio_ignores_external32_in_nonblocking_routines(tmp_path, mpirun, program):
    """ROMIO 4.0.2's nonblocking routines move native bytes through an external32
    view (its blocking ones convert): what piox corrects by completing them with the
    blocking routines. Exactly the nonblocking writes and reads fail under stock."""
    result = mpirun(RANKS, [program("datarep_writes"), tmp_path, 0, "external32"], piox=False)
    # (routine, the read after it) of each failure; the ranks' lines may interleave
    failures = re.findall(r"\.c:\d+: (MPI_File_\w+)(?:, then (MPI_File_\w+))?", result.stderr)
    assert result.returncode != 0 and failures, result.stdout + result.stderr
    for routine, read in failures:
        assert routine.startswith("MPI_File_i") or read == "MPI_File_iread_at", (routine, read)


@pytest.mark.parametrize("setting", ["atomic", "lockless-yes"])
def test_datarep_writes_open_mpi(setting, any_dir, openmpi_run, openmpi_program):
    env, atomic = SETTINGS[setting]
    passed(openmpi_run(RANKS, [openmpi_program("datarep_writes"), any_dir, atomic, "external32"],
                       env=env))
