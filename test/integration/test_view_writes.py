"""Writes through a view whose filetype's lower bound lies past its data (view_writes.c):
resized(int, 4, 12), 2 ints per rank by every kind of write routine, every byte
checked, with piox moving the data (atomic mode; PIOX_LOCKLESS=yes; the lockless
fixture) and passing it on (default), under MPICH and Open MPI. Issue 14's own case:
ROMIO 4.0.2 with write sieving off wrote one int of the two, or none."""
import pytest

from conftest import describe

RANKS = 2


def passed(result):
    assert result.returncode == 0 and "No Errors" in result.stdout, describe(result)


SETTINGS = {
    "default": ({}, 0),
    "atomic": ({}, 1),
    "lockless-yes": ({"PIOX_LOCKLESS": "yes"}, 0),
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_view_writes_mpich(setting, any_dir, mpirun, program):
    env, atomic = SETTINGS[setting]
    passed(mpirun(RANKS, [program("view_writes"), any_dir, atomic], env=env))


@pytest.mark.parametrize("setting", ["atomic", "lockless-yes"])
def test_view_writes_open_mpi(setting, any_dir, openmpi_run, openmpi_program):
    env, atomic = SETTINGS[setting]
    passed(openmpi_run(RANKS, [openmpi_program("view_writes"), any_dir, atomic], env=env))
