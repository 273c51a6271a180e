"""ROMIO's own shared file pointer tests (shared_fp.c, ordered_fp.c) run under piox.

The programs come unmodified from MPICH's source (test/peer/romio.py fetches and
builds them). Under piox they must pass with 1 to 8 ranks on a normal directory
and on the lockless FUSE fixture, without ROMIO's hidden .shfp file ever being
created. Stock MPICH is the control: it passes on a normal directory (creating a
.shfp file, which shows the watcher sees one) and aborts with "File locking
failed" where fcntl locks fail, be it the FUSE fixture or the ENOLCK interposer.
Besides ROMIO's own verdict, the bytes each run leaves in the file are checked.
"""
import array
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import PEER_BUILD, describe  # noqa: E402

SHARED_POINTER_PROGRAMS = ["shared_fp", "ordered_fp"]
RANK_COUNTS = [1, 2, 4, 8]
STOCK_RANKS = 2
INTERPOSER_RANKS = 4


@pytest.fixture(scope="session")
def enolck_interposer():
    return romio.build_interposer(PEER_BUILD)


def run_watched(mpirun, romio_tests, program, nprocs, directory, **kwargs):
    """Runs `program` on directory/testfile; returns the result and the names created."""
    argv = romio_tests.argv(program, directory / "testfile")
    with romio.CreatedNames(directory) as created:
        result = mpirun(nprocs, argv, **kwargs)
    return result, created.names


def run_stock_expecting_abort(mpirun, romio_tests, program, nprocs, directory, log_dir,
                              env=None):
    """Runs `program` without piox; returns the result and everything the ranks printed."""
    argv = romio.stderr_to_files(romio_tests.argv(program, directory / "testfile"), log_dir)
    result = mpirun(nprocs, argv, piox=False, env=env)
    return result, romio.output(result) + romio.logged_stderr(log_dir)


def ints_per_rank(romio_tests, program):
    """COUNT from the program's source: how many ints each rank writes."""
    source = (romio_tests.source_dir / f"{program}.c").read_text()
    return int(re.search(r"#define\s+COUNT\s+\(?(\d+)\)?", source).group(1))


def rank_order_in_file(path, count):
    """The ranks whose blocks the file holds, in file order.

    Rank r writes the ints r*count .. r*count+count-1 as one access, so the file
    must be whole blocks of that form; anything else (a torn, overlapping or
    missing block) fails here.
    """
    values = array.array("i", path.read_bytes())
    assert len(values) % count == 0, f"{path}: {len(values)} ints, not whole blocks of {count}"
    order = []
    for start in range(0, len(values), count):
        rank = values[start] // count
        assert values[start:start + count] == array.array(
            "i", range(rank * count, (rank + 1) * count)), f"{path}: block at int {start} is torn"
        order.append(rank)
    return order


def assert_file_layout(romio_tests, program, nprocs, path):
    order = rank_order_in_file(path, ints_per_rank(romio_tests, program))
    if program == "ordered_fp":
        assert order == list(range(nprocs)), f"write_ordered put blocks in order {order}"
    else:  # write_shared: any order, each rank exactly once
        assert sorted(order) == list(range(nprocs)), f"write_shared left blocks {order}"


def assert_no_shfp(created, directory):
    made = romio.shfp_names(created)
    assert made == [], f".shfp file created during the run: {made}"
    left = romio.shfp_names(p.name for p in directory.iterdir())
    assert left == [], f".shfp file left in {directory}"


@pytest.mark.parametrize("nprocs", RANK_COUNTS, ids=lambda n: f"{n}ranks")
@pytest.mark.parametrize("program", SHARED_POINTER_PROGRAMS)
def test_piox_passes_romio_test(mpirun, romio_tests, any_dir, program, nprocs):
    result, created = run_watched(mpirun, romio_tests, program, nprocs, any_dir, piox=True)
    assert romio.passed(result), describe(result)
    assert_no_shfp(created, any_dir)
    assert_file_layout(romio_tests, program, nprocs, any_dir / "testfile")


@pytest.mark.parametrize("program", SHARED_POINTER_PROGRAMS)
def test_stock_mpich_passes_on_normal_dir(mpirun, romio_tests, tmp_path, program):
    result, created = run_watched(mpirun, romio_tests, program, STOCK_RANKS, tmp_path,
                                  piox=False)
    assert romio.passed(result), describe(result)
    # ROMIO's own pointer lives in a .shfp file: seeing it proves the watcher that
    # finds none under piox would notice one.
    assert romio.shfp_names(created), f"stock ROMIO created no .shfp file: {sorted(created)}"
    assert_file_layout(romio_tests, program, STOCK_RANKS, tmp_path / "testfile")


@pytest.mark.parametrize("program", SHARED_POINTER_PROGRAMS)
def test_stock_mpich_fails_on_lockless_dir(mpirun, romio_tests, lockless_dir, tmp_path,
                                           program):
    result, printed = run_stock_expecting_abort(mpirun, romio_tests, program, STOCK_RANKS,
                                                lockless_dir, tmp_path / "logs")
    assert result.returncode != 0, describe(result)
    assert romio.LOCKING_FAILURE in printed, printed


@pytest.mark.parametrize("program", SHARED_POINTER_PROGRAMS)
def test_stock_mpich_fails_with_enolck_interposer(mpirun, romio_tests, enolck_interposer,
                                                  tmp_path, program):
    result, printed = run_stock_expecting_abort(
        mpirun, romio_tests, program, INTERPOSER_RANKS, tmp_path, tmp_path / "logs",
        env={"LD_PRELOAD": str(enolck_interposer)})
    assert result.returncode != 0, describe(result)
    assert romio.LOCKING_FAILURE in printed, printed


@pytest.mark.parametrize("program", SHARED_POINTER_PROGRAMS)
def test_piox_passes_with_enolck_interposer(mpirun, romio_tests, enolck_interposer,
                                            tmp_path, program):
    preload = f"{mpirun.library}:{enolck_interposer}"
    result, created = run_watched(mpirun, romio_tests, program, INTERPOSER_RANKS, tmp_path,
                                  piox=False, env={"LD_PRELOAD": preload})
    assert romio.passed(result), describe(result)
    assert_no_shfp(created, tmp_path)
    assert_file_layout(romio_tests, program, INTERPOSER_RANKS, tmp_path / "testfile")
