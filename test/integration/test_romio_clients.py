"""Real clients we did not write, against scripts/build-romio's libromio (issue 15):
ROMIO with the ad_piox driver, selected by ROMIO_FSTYPE_FORCE=piox:, stock mpiexec,
no libpiox anywhere. Each runs on a normal directory and on the lockless fixture
(every fcntl lock fails), where stock MPICH aborts the same program.

- Parallel HDF5 in C: Debian's libhdf5-mpich (test/programs/hdf5_client.c, as
  test_hdf5_clients.py runs it under libpiox), with LD_PRELOAD=libromio.so, atomic
  mode off and on; serial h5py then checks every element of the file.
- Fortran 2008: test/programs/fortran_f08_shared.f90 (`use mpi_f08`: write_shared,
  read_shared, write_ordered, seek_shared, get_position_shared, atomic write_at and
  read_at) built with mpif90 and relinked with libromio before libmpichfort and
  libmpich; the test checks the file's records from its bytes. MPICH 4.0.2's
  mpi_f08 bindings call the C MPI_File_* routines for those with a buffer and
  PMPI_File_* directly for the others (open, close, seek_shared,
  get_position_shared, set_atomicity): both resolve in libromio, which exports both
  names and is loaded first (test_f08_calls_bind_in_libromio, from the dynamic
  linker's own LD_DEBUG=bindings log), and gdb counts ad_piox's entry points.

The proof that ad_piox served a run: piox's core inside libromio prints, under
PIOX_DEBUG=1, a "shared file pointer" line per rank when ad_piox's collective open
creates the file's pointer (nothing else could print it: libpiox is not loaded);
and no ROMIO .shfp file appears where a pointer routine ran.

Not here: mpi4py and h5py. Debian builds them on Open MPI, and ROMIO 4.0.2 does not
build standalone against Open MPI 4.1 as it is (README, "ROMIO with piox inside").
"""
import collections
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import PROGRAM_SOURCES, describe  # noqa: E402
from test_fortran import (DATA_FILE, MPICH_FC, NSHARED, check_directory,  # noqa: E402
                          check_shared_records, compile_fortran, expect_passed, read_records,
                          run_watched)
from test_hdf5_clients import RANKS, STRIPED_ROWS, check_file, file_env, passed  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

THROUGH_AD_PIOX = {"ROMIO_FSTYPE_FORCE": "piox:", "PIOX_DEBUG": "1"}
POINTER_CREATED = re.compile(r"piox\[(\d+)\]: shared file pointer: transport")
F08_SOURCE = PROGRAM_SOURCES / "fortran_f08_shared.f90"


def served_by_ad_piox(result, nprocs):
    """Every rank opened one file through ad_piox (the PIOX_DEBUG line of its open)."""
    ranks = sorted(int(r) for r in POINTER_CREATED.findall(result.stderr))
    assert ranks == list(range(nprocs)), describe(result)


def aborts_on_locks(mpirun, nprocs, argv, log_dir, env=None):
    """Stock MPICH (no libromio, no libpiox) on the lockless fixture: ROMIO's fcntl
    lock fails and the job aborts. Each rank's stderr in log_dir (romio.stderr_to_files)."""
    result = mpirun(nprocs, romio.stderr_to_files(argv, log_dir), piox=False, env=env)
    printed = romio.output(result) + romio.logged_stderr(log_dir)
    assert result.returncode != 0, describe(result, printed)
    assert romio.LOCKING_FAILURE in printed, describe(result, printed)


# --- Parallel HDF5 in C (libhdf5-mpich), libromio preloaded.

@pytest.mark.parametrize("atomic", [0, 1])
def test_parallel_hdf5_c_preloaded(atomic, any_dir, mpirun, hdf5_program):
    path = any_dir / "client.h5"
    env = {"LD_PRELOAD": str(romio.standalone_lib()), **THROUGH_AD_PIOX, **file_env(any_dir)}
    result = mpirun(RANKS, [hdf5_program("hdf5_client"), path, atomic], piox=False, env=env)
    passed(result)
    served_by_ad_piox(result, RANKS)
    check_file(path, 2 * STRIPED_ROWS)  # hdf5_client.c stripes 2 * STRIPED_ROWS rows


@pytest.mark.parametrize("atomic", [0, 1])
def test_parallel_hdf5_c_stock_aborts_on_fixture(atomic, lockless_dir, tmp_path, mpirun,
                                                 hdf5_program):
    """The anchor. Atomic mode locks every access; outside it, ROMIO's data sieving
    locks HDF5's independent strided write."""
    argv = [hdf5_program("hdf5_client"), lockless_dir / "client.h5", atomic]
    aborts_on_locks(mpirun, RANKS, argv, tmp_path / "logs", env=file_env(lockless_dir))


# --- Fortran 2008 (use mpi_f08), relinked with libromio.

@pytest.fixture(scope="session")
def f08_programs(tmp_path_factory):
    """fortran_f08_shared built twice with mpif90: against stock MPICH, and with
    libromio linked first."""
    if not shutil.which(MPICH_FC):
        pytest.fail(f"{MPICH_FC} is missing: install gfortran and libmpich-dev (scripts/setup)")
    romio.standalone_lib()
    return {"stock": compile_fortran(MPICH_FC, tmp_path_factory.mktemp("f08-stock") / "f08",
                                     source=F08_SOURCE),
            "libromio": compile_fortran(MPICH_FC, tmp_path_factory.mktemp("f08-romio") / "f08",
                                        romio.STANDALONE_LINK_FLAGS, source=F08_SOURCE)}


def check_f08_file(path, nprocs):
    """fortran_f08_shared.f90's layout: NSHARED shared records per rank, one ordered
    per rank in rank order, one atomic per rank at its rank's slot."""
    records = read_records(path)
    assert len(records) == nprocs * (NSHARED + 2)
    shared_end = nprocs * NSHARED
    check_shared_records(records[:shared_end], nprocs)
    assert records[shared_end:shared_end + nprocs] == [("ordered", r, 0) for r in range(nprocs)]
    assert records[shared_end + nprocs:] == [("atomic", r, 0) for r in range(nprocs)]


def test_f08_program_links_libromio_first(f08_programs):
    """The program's own code calls libmpichfort only: without --no-as-needed the
    linker would drop libromio (romio.STANDALONE_LINK_FLAGS)."""
    romio.check_loads_standalone_first(f08_programs["libromio"])


def test_f08_through_ad_piox(any_dir, mpirun, f08_programs):
    result, created = run_watched(mpirun, RANKS, f08_programs["libromio"], any_dir, piox=False,
                                  env=THROUGH_AD_PIOX)
    expect_passed(result)
    served_by_ad_piox(result, RANKS)
    check_f08_file(any_dir / DATA_FILE, RANKS)
    check_directory(any_dir, created)


def test_f08_stock_mpich_passes_on_normal_dir(tmp_path, mpirun, f08_programs):
    """The control: the program and the file check agree with stock MPICH, whose
    .shfp file the watcher does see."""
    result, created = run_watched(mpirun, RANKS, f08_programs["stock"], tmp_path, piox=False,
                                  env={})
    expect_passed(result)
    check_f08_file(tmp_path / DATA_FILE, RANKS)
    assert romio.shfp_names(created), f"no .shfp file seen: {sorted(created)}"


def test_f08_stock_mpich_aborts_on_fixture(lockless_dir, tmp_path, mpirun, f08_programs):
    aborts_on_locks(mpirun, RANKS, [f08_programs["stock"], lockless_dir / DATA_FILE],
                    tmp_path / "logs")


# What the program calls, by the symbol libmpichfort's mpi_f08 bindings bind.
F08_BOUND = {"PMPI_File_open", "PMPI_File_close", "PMPI_File_delete",
             "PMPI_File_seek_shared", "PMPI_File_get_position_shared",
             "PMPI_File_set_atomicity", "PMPI_File_get_atomicity",
             "MPI_File_write_shared", "MPI_File_read_shared", "MPI_File_write_ordered",
             "MPI_File_write_at", "MPI_File_read_at"}
BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: "
                     r"normal symbol `(P?MPI_File_\w+)'")


@pytest.mark.parametrize("build, library", [("libromio", "libromio.so"),
                                            ("stock", "libmpich.so")])
def test_f08_calls_bind_in_libromio(build, library, tmp_path, mpirun, f08_programs):
    """The dynamic linker's own log (LD_DEBUG=bindings, one rank) of every MPI-IO symbol
    bound: all in libromio when it is linked first, all in libmpich otherwise (the
    anchor: the log tells them apart)."""
    log = tmp_path / "ld"
    env = {**(THROUGH_AD_PIOX if build == "libromio" else {}), "LD_DEBUG": "bindings",
           "LD_DEBUG_OUTPUT": str(log)}
    result = mpirun(1, [f08_programs[build], tmp_path / DATA_FILE], piox=False, env=env)
    expect_passed(result)
    bindings = [BINDING.search(line) for path in tmp_path.glob("ld.*")
                for line in path.read_text(errors="replace").splitlines()]
    bindings = [m.groups() for m in bindings if m]
    from_fortran = {symbol for caller, _, symbol in bindings if "libmpichfort" in caller}
    assert F08_BOUND <= from_fortran, sorted(from_fortran)
    elsewhere = sorted({(symbol, target) for _, target, symbol in bindings
                        if library not in Path(target).name})
    assert elsewhere == [], elsewhere


# gdb prints a line each time one of ad_piox's entry points runs, and goes on.
AD_PIOX_ENTRY_POINTS = ["OpenColl", "SetLock", "GetSharedFP", "SetSharedFP", "GetOrderedFP",
                        "OptimisticReadBegin", "OptimisticReadEnd"]
# With one rank: the open; two locks (take, release) for the atomic write_at; the
# atomic read_at read optimistically (patch 0019), no writer beside it, so kept
# without a lock; 3 write_shared + 3 read_shared + 5 get_position_shared;
# seek_shared; write_ordered.
AD_PIOX_CALLS = {"OpenColl": 1, "SetLock": 2, "GetSharedFP": 11, "SetSharedFP": 1,
                 "GetOrderedFP": 1, "OptimisticReadBegin": 1, "OptimisticReadEnd": 1}


def test_f08_reaches_ad_piox_entry_points(lockless_dir, tmp_path, mpirun, f08_programs):
    gdb = shutil.which("gdb")
    if gdb is None:
        pytest.fail("gdb is missing: scripts/setup installs it")
    commands = tmp_path / "gdb.commands"
    commands.write_text("set breakpoint pending on\n" + "".join(
        f'dprintf ADIOI_PIOX_{name},"ad_piox entry {name}\\n"\n'
        for name in AD_PIOX_ENTRY_POINTS) + "run\n")
    argv = [gdb, "-q", "-batch", "-x", commands, "--args", f08_programs["libromio"],
            lockless_dir / DATA_FILE]
    result = mpirun(1, argv, piox=False, env=THROUGH_AD_PIOX)
    expect_passed(result)
    calls = collections.Counter(re.findall(r"^ad_piox entry (\w+)$", result.stdout, re.M))
    assert calls == AD_PIOX_CALLS, describe(result)
