"""Real clients we did not write, started under `piox load` with libpiox preloaded,
as a user would run them: parallel HDF5 in C (Debian's libhdf5-mpich), h5py on
Open MPI (Debian's python3-h5py-mpi, numpy and mpi4py; the Python stack's directory
served with --python-prefix) and the Fortran 2008 program (libgfortran, MPICH's
Fortran bindings). Each client checks its own data, and the test checks the file
as test_hdf5_clients and test_fortran do. LD_DEBUG=files in the processes shows
where the loader mapped each object from: the libraries named here must come from
the job's node-local copies, not from the file system."""
import re

import pytest

import test_fortran as fortran
import test_hdf5_clients as hdf5
from conftest import PROGRAM_SOURCES, describe
from test_fortran import mpich_fortran_program  # noqa: F401  (a fixture)
from test_loader_load import piox_load

RANKS = 4
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
# LD_DEBUG=files: "  pid:\tfile=PATH [0];  generating link map", once per object mapped
MAPPED = re.compile(r"file=(\S+) \[\d+\];\s+generating link map")


def mapped_objects(stderr):
    return set(MAPPED.findall(stderr))


def check_served(result, names):
    """Every object whose path holds one of `names` was mapped from a node's copy,
    and each name was mapped at all."""
    mapped = mapped_objects(result.stderr)
    for name in names:
        matching = [path for path in mapped if name in path.rsplit("/", 1)[-1]]
        assert matching, f"{name} was not mapped:\n" + "\n".join(sorted(mapped))
        outside = [path for path in matching if "/piox-load." not in path or "/root/" not in path]
        assert not outside, f"{name} mapped from the file system: {outside}"


def load(run, argv, env=None, options=()):
    """`piox load [options] -- <run's launcher with libpiox> argv`, LD_DEBUG=files in
    the processes."""
    command = run.command(RANKS, argv, env={"LD_DEBUG": "files", **(env or {})})
    return piox_load(command, options=options)


def test_parallel_hdf5_c(tmp_path, mpirun, hdf5_program):
    path = tmp_path / "client.h5"
    done = load(mpirun, [hdf5_program("hdf5_client"), path, 1])
    assert done.returncode == 0 and "No Errors" in done.stdout, describe(done)
    hdf5.check_file(path, 2 * hdf5.STRIPED_ROWS)
    # h5pcc links HDF5 itself statically: its compression libraries are what it loads
    check_served(done, ["libmpich.so", "libpiox.so", "libsz.so", "libz.so", "libc.so"])


def test_h5py_on_open_mpi(tmp_path, openmpi_run):
    path = tmp_path / "client.h5"
    client = PROGRAM_SOURCES / "h5py_client.py"
    done = load(openmpi_run, ["/usr/bin/python3", client, path, 1],
                options=["--python-prefix", DIST_PACKAGES])
    assert done.returncode == 0 and "No Errors" in done.stdout, describe(done)
    hdf5.check_file(path, hdf5.STRIPED_ROWS)
    # h5py's and mpi4py's extension modules, numpy's, and what they link
    check_served(done, ["_objects.cpython", "MPI.cpython", "_multiarray_umath.cpython",
                        "libhdf5_openmpi.so", "libmpi.so"])


def test_fortran_2008_program(tmp_path, mpirun, mpich_fortran_program):
    done = load(mpirun, [mpich_fortran_program, tmp_path / fortran.DATA_FILE])
    fortran.expect_passed(done)
    fortran.check_file(tmp_path / fortran.DATA_FILE, RANKS)
    check_served(done, ["libgfortran.so", "libmpichfort.so"])
