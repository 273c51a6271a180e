"""Files opened with MPI_MODE_SEQUENTIAL (logs, pipes, tapes: the files shared
pointers exist for). piox keeps the mode from the MPI library, which would refuse
the explicit-offset routines piox moves shared-pointer data with, and enforces the
standard's rules itself (mpiio/sequential.h).

sequential.c writes records through every shared and ordered routine (blocking,
nonblocking, split; int and _c), moves the view with MPI_DISPLACEMENT_CURRENT, reads
everything back through every reading routine and checks each record arrived once;
it also checks the refusals. fortran_sequential.f90 does the same from Fortran.
Here the file's bytes are checked again, independently of the programs.
"""
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from test_fortran import compile_fortran
from test_shared_pointer import passed

SOURCES = Path(__file__).resolve().parents[1] / "programs"
RANKS = 4
RECORD = 32
ROUNDS, ROUTINES = 6, 4  # as in sequential.c


def check_records(path, nranks, forms):
    """The file is exactly the records sequential.c wrote, each once."""
    data = path.read_bytes()
    per_rank = ROUNDS * ROUTINES * forms
    assert len(data) == nranks * per_rank * RECORD
    seen = set()
    for at in range(0, len(data), RECORD):
        rank, seq, routine, check = struct.unpack_from("<4i", data, at)
        assert 0 <= rank < nranks and 0 <= seq < per_rank, f"garbage at byte {at}"
        assert routine == seq % (ROUTINES * forms) and check == rank * 7919 + seq * 31 + routine
        assert (rank, seq) not in seen, f"record {rank}/{seq} twice"
        seen.add((rank, seq))


def test_every_shared_routine_on_a_sequential_file(any_dir, mpirun, program):
    passed(mpirun(RANKS, [program("sequential"), any_dir]))
    check_records(any_dir / "sequential", RANKS, forms=2)


def test_stock_mpich_control(tmp_path, mpirun, program):
    """The data part passes under stock MPICH on /tmp too (its refusals differ from the
    standard's: it refuses MPI_File_get_byte_offset, allows MPI_File_preallocate and
    types with holes)."""
    passed(mpirun(RANKS, [program("sequential"), tmp_path, "--data-only"], piox=False))
    check_records(tmp_path / "sequential", RANKS, forms=2)


def test_under_open_mpi(any_dir, openmpi_run, openmpi_program):
    passed(openmpi_run(RANKS, [openmpi_program("sequential"), any_dir]))
    check_records(any_dir / "sequential", RANKS, forms=1)


@pytest.fixture(scope="module")
def fortran_programs(tmp_path_factory):
    """fortran_sequential compiled for MPICH and (when installed) Open MPI."""
    built = {}
    source = SOURCES / "fortran_sequential.f90"
    out = tmp_path_factory.mktemp("fortran-sequential")
    built["mpich"] = compile_fortran("mpif90", out / "mpich", source=source)
    if shutil.which("mpif90.openmpi"):
        libdirs = subprocess.run(["mpicc.openmpi", "--showme:libdirs"], capture_output=True,
                                 text=True, check=True).stdout.split()
        built["openmpi"] = compile_fortran("mpif90.openmpi", out / "openmpi",
                                           [f"-L{d}" for d in libdirs], source=source)
    return built


def test_fortran_mpich(any_dir, mpirun, fortran_programs):
    passed(mpirun(RANKS, [fortran_programs["mpich"], any_dir / "log"]))
    assert (any_dir / "log").stat().st_size == RANKS * 8 * RECORD


def test_fortran_open_mpi(any_dir, openmpi_run, fortran_programs):
    if "openmpi" not in fortran_programs:
        pytest.skip("mpif90.openmpi is not installed")
    passed(openmpi_run(RANKS, [fortran_programs["openmpi"], any_dir / "log"]))
    assert (any_dir / "log").stat().st_size == RANKS * 8 * RECORD
