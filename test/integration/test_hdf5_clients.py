"""Real HDF5 clients under piox: parallel HDF5 in C (Debian's libhdf5-mpich, the
mpio driver) and h5py (Debian's python3-h5py-mpi, on Open MPI), in atomic mode and
not, on /tmp and on the lockless fixture. HDF5 turns its hyperslabs into MPI file
views and calls MPI_File_write_at(_all) and set_view, which piox takes over in atomic
mode and, on a lockless file system, for writes. Each program checks every element
itself; the test then reads the file with serial h5py, outside MPI and piox, and
compares every element again. HDF5's own file locking (flock) is off on the lockless
fixture (HDF5_USE_FILE_LOCKING=FALSE), where flock fails like fcntl."""
import numpy
import pytest

from conftest import PROGRAM_SOURCES, describe

RANKS = 4
ROWS, COLS, STRIPED_ROWS = 64, 96, 8


def expected_values(striped_rows):
    rows, cols = numpy.meshgrid(numpy.arange(ROWS), numpy.arange(COLS), indexing="ij")
    values = (rows * 1000 + cols).astype("i4")
    values[:striped_rows] = -values[:striped_rows] - 1
    return values


def check_file(path, striped_rows):
    import h5py  # serial: no MPI launcher variables in this process
    with h5py.File(path, "r", locking=False) as f:
        got = f["values"][...]
    want = expected_values(striped_rows)
    wrong = numpy.argwhere(got != want)
    assert len(wrong) == 0, f"{len(wrong)} elements wrong, first {wrong[0].tolist()}"


def passed(result):
    assert result.returncode == 0 and "No Errors" in result.stdout, describe(result)


def file_env(directory):
    # HDF5 flocks the file it creates; the lockless fixture refuses that too.
    return {"HDF5_USE_FILE_LOCKING": "FALSE"} if "lockless" in str(directory) else {}


@pytest.fixture(scope="session")
def hdf5_c_client(hdf5_program):
    return hdf5_program("hdf5_client")


@pytest.mark.parametrize("atomic", [0, 1])
def test_parallel_hdf5_c(atomic, any_dir, mpirun, hdf5_c_client):
    path = any_dir / "client.h5"
    passed(mpirun(RANKS, [hdf5_c_client, path, atomic], env=file_env(any_dir)))
    # hdf5_client.c stripes the first 2 * STRIPED_ROWS rows.
    check_file(path, 2 * STRIPED_ROWS)


@pytest.mark.parametrize("atomic", [0, 1])
def test_h5py_open_mpi(atomic, any_dir, openmpi_run):
    path = any_dir / "client.h5"
    client = PROGRAM_SOURCES / "h5py_client.py"
    passed(openmpi_run(RANKS, ["/usr/bin/python3", client, path, atomic], env=file_env(any_dir)))
    check_file(path, STRIPED_ROWS)
