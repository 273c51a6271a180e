"""The Jacobi solver of issue 18 through DesyncFS (desync/examples/jacobi_desync.c) and
its plain-MPI twin (jacobi_mpi.c). Both final grids must be the bytes of an
independent reference (numpy, the same sums in the same order: jacobi_kernel.h), so
the DesyncFS version is the twin's bit for bit: at every rank count, with laggards,
with chunks of any layout and with any run-ahead window. A laggard's schedule must
hold in the twin."""
import re

import numpy
import pytest

from conftest import BUILD

JACOBI = BUILD / "desync" / "examples" / "jacobi_mpi"
JACOBI_DESYNC = BUILD / "desync" / "examples" / "jacobi_desync"
N, BLOCK, VERSIONS = 72, 4, 40


def reference(n, versions):
    """The grid after `versions` steps, from jacobi_kernel.h's definition."""
    grid = numpy.zeros((n + 2, n + 2))
    grid[0, :] = 1.0                                    # i = -1: the top edge
    grid[1:n + 1, 0] = numpy.arange(n) / float(n)       # j = -1: i / n
    grid[n + 1, 0] = 1.0                                # (n, -1): never read
    for _ in range(versions):
        inner = 0.25 * ((grid[:-2, 1:-1] + grid[2:, 1:-1]) + (grid[1:-1, :-2] + grid[1:-1, 2:]))
        grid = grid.copy()
        grid[1:-1, 1:-1] = inner
    return grid[1:-1, 1:-1]


@pytest.fixture(scope="module")
def expected():
    return reference(N, VERSIONS).tobytes()


def run_jacobi(mpirun, ranks, output, *options, program=JACOBI):
    if not program.exists():
        pytest.fail(f"{program} is missing: run `make check` in {BUILD}")
    return mpirun(ranks, [program, N, BLOCK, VERSIONS, output, *options], piox=False, timeout=120)


@pytest.mark.parametrize("ranks", [1, 4, 9])
def test_the_grid_is_the_references_bytes(mpirun, tmp_path, expected, ranks):
    output = tmp_path / "grid"
    done = run_jacobi(mpirun, ranks, output)
    assert done.returncode == 0, done.stderr
    assert f"jacobi_mpi ranks={ranks} n={N} block={BLOCK} versions={VERSIONS} " in done.stdout
    assert output.read_bytes() == expected


def test_a_laggard_keeps_the_bytes_and_sets_the_pace(mpirun, tmp_path, expected):
    """Rank 1 at factor 3, 100 us per block: each of its steps lasts at least its
    81 blocks (36 x 36 points in 4 x 4 blocks) times 300 us, and the others wait for it."""
    output = tmp_path / "grid"
    done = run_jacobi(mpirun, 4, output, "--cost-us", "100", "--laggard", "1:3")
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == expected
    seconds = float(re.search(r"seconds=([0-9.]+)", done.stdout)[1])
    assert seconds >= VERSIONS * 81 * 300e-6


@pytest.mark.parametrize("ranks,options", [
    (1, []), (4, []), (9, []),                          # grid:qxq, the twin's squares
    (2, []), (5, []),                                   # bisection
    (4, ["--chunks", "bisect:1,3,1,2"]),                # chunks of unequal size
    (4, ["--window", "1"]), (9, ["--window", "8"]),
    (4, ["--cost-us", "100", "--laggard", "1:4"]),      # a laggard's neighbours run ahead
    (9, ["--cost-us", "50", "--laggard", "4:3", "--laggard", "0:2", "--window", "2"]),
    # Rechunking: each period of K versions laid out anew, its chunks moved away from
    # the laggard (the blocks before a period pushed to their new owners).
    (4, ["--rebalance", "10", "--cost-us", "100", "--laggard", "1:4"]),
    (9, ["--rebalance", "7", "--balance", "throughput", "--cost-us", "50", "--laggard", "4:4"]),
    (5, ["--rebalance", "1", "--window", "2"]),
])
def test_desyncfs_gives_the_twins_bytes(mpirun, tmp_path, expected, ranks, options):
    output = tmp_path / "grid"
    done = run_jacobi(mpirun, ranks, output, *options, program=JACOBI_DESYNC)
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == expected
    counts = dict(re.findall(r"(\w+)=([0-9.]+)", done.stdout))
    blocks = (N // BLOCK) ** 2 * (VERSIONS + 1)
    assert int(counts["computed"]) == blocks  # each block once: nothing freed too early
    if ranks > 1:
        assert int(counts["pushed"]) > 0  # prefetch moved the halos


@pytest.mark.parametrize("ranks,arguments,message", [
    (3, [N, BLOCK, VERSIONS], "the number of ranks must be a square"),
    (4, [70, BLOCK, VERSIONS], "N must be a multiple of sqrt(ranks) times B"),
    (4, [N, 0, VERSIONS], "N, B and VERSIONS must be positive integers"),
    (4, [N, BLOCK, VERSIONS, "--laggard", "4:2"], "--laggard needs RANK:FACTOR"),
    (4, [N, BLOCK, VERSIONS, "--laggard", "1:0.5"], "--laggard needs RANK:FACTOR"),
    (1, [N, BLOCK, VERSIONS, "--bogus"], "unknown or incomplete option"),
])
def test_bad_arguments_are_refused(mpirun, tmp_path, ranks, arguments, message):
    output = tmp_path / "grid"
    argv = [JACOBI, *arguments[:3], output, *arguments[3:]]
    done = mpirun(ranks, argv, piox=False, timeout=60)
    assert done.returncode != 0 and f"jacobi_mpi: {message}" in done.stderr, done.stderr
    assert done.stderr.count("jacobi_mpi:") == 1  # said once, by rank 0
    assert not output.exists()


@pytest.mark.parametrize("options,message", [
    (["--chunks", "spiral"], "desync_chunks=\"spiral\""),
    (["--window", "0"], "desync_window=\"0\""),
    (["--chunks", "grid:3x3"], "multiply to 9, not the 4 processes"),
])
def test_desyncfs_refuses_a_bad_job(mpirun, tmp_path, options, message):
    done = run_jacobi(mpirun, 4, tmp_path / "grid", *options, program=JACOBI_DESYNC)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert done.stderr.count(message) == 4  # every rank says why it stopped
