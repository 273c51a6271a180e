"""Fortran programs reach piox, under MPICH and under Open MPI.

test/programs/fortran_shared.f90 (`use mpi`) calls every routine piox wraps and
checks what it reads and the shared positions itself. Each test compiles it (once
per session) with the MPI's Fortran wrapper, runs it under piox and then checks:
the program's verdict, the file's bytes, the PIOX_STATS=1 line of every rank (the
proof that piox took each call, exactly once) and that no ROMIO .shfp file ever
appeared. MPICH's Fortran bindings call the C MPI_File_* symbols; Open MPI's call
PMPI_* and reach piox only through its Fortran entry points (pmpi_shim/fortran.cpp).
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402  (romio.CreatedNames watches a directory with inotify)
from conftest import describe  # noqa: E402

SOURCE = Path(__file__).resolve().parents[1] / "programs" / "fortran_shared.f90"
MPICH_FC = "mpif90"
OPENMPI_FC = "mpif90.openmpi"
RANK_COUNTS = [1, 4]

# The file layout fortran_shared.f90 writes (see its header): RECLEN-byte text
# records, NSHARED "shared" ones per rank, then one "ordered", "ishared" and
# "split" per rank. (fortran_f08_shared.f90 writes its records alike, test_romio_clients.)
RECLEN = 32
NSHARED = 3
RECORD = re.compile(rb"(shared |ordered|ishared|split  |atomic ) rank=(\d{6}) seq=(\d{6}) \n")

# What each rank of fortran_shared.f90 calls, as piox's statistics name it.
EXPECTED_CALLS = {
    "MPI_File_set_view": 2,
    "MPI_File_get_amode": 1,
    "MPI_File_read_shared": 3,
    "MPI_File_write_shared": 3,
    "MPI_File_iread_shared": 1,
    "MPI_File_iwrite_shared": 1,
    "MPI_File_read_ordered": 1,
    "MPI_File_write_ordered": 1,
    "MPI_File_read_ordered_begin": 1,
    "MPI_File_write_ordered_begin": 1,
    "MPI_File_read_ordered_end": 1,
    "MPI_File_write_ordered_end": 1,
    "MPI_File_seek_shared": 4,
    "MPI_File_get_position_shared": 13,
}
STATS_LINE = re.compile(
    r"^piox\[(\d+)\]: stats '(.*)': shared pointer (\S+); atomic-mode locks \S+; locality [^;]*; (.*)$")
DATA_FILE = "fortran_shared.dat"


def compile_fortran(compiler, output, extra_args=(), source=SOURCE):
    command = [compiler, "-Wall", "-o", str(output), str(source), *extra_args]
    result = subprocess.run(command, capture_output=True, text=True, cwd=output.parent,
                            timeout=300)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return output


@pytest.fixture(scope="session")
def mpich_fortran_program(tmp_path_factory):
    if not shutil.which(MPICH_FC):
        pytest.fail(f"{MPICH_FC} is missing: install gfortran and libmpich-dev (scripts/setup)")
    return compile_fortran(MPICH_FC, tmp_path_factory.mktemp("fortran-mpich") / "fortran_shared")


@pytest.fixture(scope="session")
def openmpi_fortran_program(tmp_path_factory):
    if not shutil.which(OPENMPI_FC) or not shutil.which("mpicc.openmpi"):
        pytest.skip(f"{OPENMPI_FC} is not installed: no Open MPI Fortran to test")
    # Debian's mpif90.openmpi leaves out Open MPI's library directory, so its -lmpi
    # would find the libmpi.so of the `mpi` alternative, MPICH's when MPICH is the
    # default, and the program would die in its first MPI call.
    libdirs = subprocess.run(["mpicc.openmpi", "--showme:libdirs"], capture_output=True,
                             text=True, check=True).stdout.split()
    output = tmp_path_factory.mktemp("fortran-openmpi") / "fortran_shared"
    return compile_fortran(OPENMPI_FC, output, [f"-L{d}" for d in libdirs])


def run_watched(run, nprocs, program, directory, piox=True, env=None):
    """Runs the program on directory/DATA_FILE (env: PIOX_STATS=1 unless given);
    returns the result and the names created."""
    with romio.CreatedNames(directory) as created:
        result = run(nprocs, [program, directory / DATA_FILE], piox=piox,
                     env={"PIOX_STATS": "1"} if env is None else env)
    return result, created.names


def expect_passed(result):
    assert result.returncode == 0 and " No Errors" in result.stdout, describe(result)


def read_records(path):
    """The file's records as (kind, rank, seq), in file order."""
    data = path.read_bytes()
    assert len(data) % RECLEN == 0, f"{len(data)} bytes is not a whole number of records"
    records = []
    for offset in range(0, len(data), RECLEN):
        match = RECORD.fullmatch(data[offset:offset + RECLEN])
        assert match, f"malformed record at byte {offset}: {data[offset:offset + RECLEN]!r}"
        records.append((match[1].decode().strip(), int(match[2]), int(match[3])))
    return records


def check_file(path, nprocs):
    records = read_records(path)
    assert len(records) == nprocs * (NSHARED + 3)
    shared_end = nprocs * NSHARED
    shared = records[:shared_end]
    ordered, ishared, split = (records[shared_end + i * nprocs:shared_end + (i + 1) * nprocs]
                               for i in range(3))
    one_per_rank = range(nprocs)
    check_shared_records(shared, nprocs)
    assert ordered == [("ordered", r, 0) for r in one_per_rank]
    assert sorted(ishared) == [("ishared", r, 0) for r in one_per_rank]
    assert split == [("split", r, 0) for r in one_per_rank]


def check_shared_records(shared, nprocs):
    """Shared writes: each record exactly once, any interleaving, but each rank's own
    records in the order it wrote them."""
    assert sorted(shared) == [("shared", r, s) for r in range(nprocs) for s in range(NSHARED)]
    for rank in range(nprocs):
        assert [seq for _, writer, seq in shared if writer == rank] == list(range(NSHARED))


def stats_by_rank(stderr):
    """{rank: (file name, transport, {routine: calls})} from the PIOX_STATS=1 lines."""
    stats = {}
    for line in stderr.splitlines():
        match = STATS_LINE.match(line)
        if match:
            calls = dict((name, int(n)) for name, n in
                         (item.split("=") for item in match[4].split()))
            assert int(match[1]) not in stats, f"two stats lines for rank {match[1]}"
            stats[int(match[1])] = (match[2], match[3], calls)
    return stats


def check_piox_took_every_call(result, nprocs, data_file):
    stats = stats_by_rank(result.stderr)
    assert sorted(stats) == list(range(nprocs)), result.stderr
    for rank, (name, transport, calls) in stats.items():
        # The name arrived whole: Fortran's blank padding was trimmed, nothing more.
        assert name == str(data_file)
        assert transport != "off"
        assert calls == EXPECTED_CALLS, f"rank {rank}: {calls}"


def check_directory(directory, created):
    assert romio.shfp_names(created) == [], "ROMIO's shared file pointer file was created"
    assert sorted(p.name for p in directory.iterdir()) == [DATA_FILE]


@pytest.mark.parametrize("nprocs", RANK_COUNTS)
def test_mpich_fortran_calls_reach_piox(nprocs, tmp_path, mpirun, mpich_fortran_program):
    result, created = run_watched(mpirun, nprocs, mpich_fortran_program, tmp_path)
    expect_passed(result)
    check_file(tmp_path / DATA_FILE, nprocs)
    check_piox_took_every_call(result, nprocs, tmp_path / DATA_FILE)
    check_directory(tmp_path, created)


def test_mpich_fortran_program_passes_without_piox(tmp_path, mpirun, mpich_fortran_program):
    """The control: the program and the file checks agree with stock MPICH, which
    makes (and deletes) a .shfp file: the watcher sees one."""
    result, created = run_watched(mpirun, 2, mpich_fortran_program, tmp_path, piox=False)
    expect_passed(result)
    check_file(tmp_path / DATA_FILE, 2)
    assert stats_by_rank(result.stderr) == {}
    assert romio.shfp_names(created), f"no .shfp file seen: {sorted(created)}"


@pytest.mark.parametrize("nprocs", RANK_COUNTS)
def test_openmpi_fortran_calls_reach_piox(nprocs, tmp_path, openmpi_run, openmpi_fortran_program):
    result, created = run_watched(openmpi_run, nprocs, openmpi_fortran_program, tmp_path)
    expect_passed(result)
    check_file(tmp_path / DATA_FILE, nprocs)
    check_piox_took_every_call(result, nprocs, tmp_path / DATA_FILE)
    check_directory(tmp_path, created)
