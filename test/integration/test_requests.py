"""Requests and statuses that piox completes are fully set, on both MPIs.

piox finishes a nonblocking access before it returns when it moves the data itself
(atomic mode; independent writes on a lockless file system) and hands back a
generalized request that is already complete. Under Open MPI, MPI_Wait returns such
a request's status MPI_ERROR as its own result: before piox set it, MPI_Wait on an
MPI_File_iwrite returned garbage although the data was written, and mpi4py's
Iwrite(...).Wait() raised.

requests.c mixes piox's requests with the library's through every completion
routine; mpi4py_files.py is a Python program using Debian's python3-mpi4py (built
on Open MPI) with blocking and nonblocking explicit-offset, shared and ordered file
methods. Both run under piox on /tmp and on the lockless fixture, with atomic mode
on and off.
"""
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from test_shared_pointer import passed

MPI4PY_PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "mpi4py_files.py"
ATOMICITY = {"atomic": ["--atomic"], "nonatomic": []}


@pytest.mark.parametrize("atomicity", ATOMICITY)
def test_mixed_requests_mpich(atomicity, any_dir, mpirun, program):
    passed(mpirun(2, [program("requests"), any_dir, *ATOMICITY[atomicity]]))


@pytest.mark.parametrize("atomicity", ATOMICITY)
def test_mixed_requests_open_mpi(atomicity, any_dir, openmpi_run, openmpi_program):
    passed(openmpi_run(2, [openmpi_program("requests"), any_dir, *ATOMICITY[atomicity]]))


@pytest.fixture(scope="session")
def mpi4py_python():
    """Debian's interpreter, with python3-mpi4py (scripts/setup installs it)."""
    if importlib.util.find_spec("mpi4py") is None:
        pytest.fail("python3-mpi4py is missing: scripts/setup installs it")
    return "/usr/bin/python3"


@pytest.mark.parametrize("atomicity", ATOMICITY)
def test_mpi4py_file_methods(atomicity, any_dir, openmpi_run, mpi4py_python):
    result = openmpi_run(3, [mpi4py_python, MPI4PY_PROGRAM, any_dir, *ATOMICITY[atomicity]],
                         timeout=300)
    passed(result)


def test_mpi4py_file_methods_stock_open_mpi(tmp_path, openmpi_run, mpi4py_python):
    """The control: the same program passes under stock Open MPI on /tmp."""
    passed(openmpi_run(3, [mpi4py_python, MPI4PY_PROGRAM, tmp_path, "--atomic"], piox=False))
