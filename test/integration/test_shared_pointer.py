"""Shared and ordered file pointers under piox, on a normal directory and on the
lockless FUSE file system, with real mpiexec and byte-by-byte checks of the files.

The C programs are in test/programs (see their headers); records_check verifies
record files (every record exactly once, no gap, no overlap, rank order for ordered
mode) and read-back chunk files.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402  (stderr_to_files: an aborting job's messages, kept in files)
from conftest import describe  # noqa: E402

RANKS = 8
# 16,000 records a file: each rank's records interleave with the others' thousands of
# times (it was 5,000 a rank, two and a half times the work for the same checks).
RECORDS_PER_RANK = 2000
# Ordered mode through MPI RMA is a collective step per record: 500 rounds of 4 ranks.
RMA_RECORDS_PER_RANK = 500
SEED = 42
CHUNK = 65536


def hidden_files(directory):
    """ROMIO's hidden shared-pointer files (.NAME.shfp.NUMBER) in directory."""
    return sorted(p.name for p in directory.iterdir() if ".shfp" in p.name)


def records_check(program, *args):
    result = subprocess.run([str(program("records_check"))] + [str(a) for a in args],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def passed(result):
    assert result.returncode == 0 and " No Errors" in result.stdout, describe(result)


@pytest.fixture(scope="module")
def written_file(tmp_path_factory, mpirun, program):
    """One file of 8 x 2000 records written with write_shared, for the read tests."""
    path = tmp_path_factory.mktemp("written") / "records"
    passed(mpirun(RANKS, [program("records"), path, "write_shared", RECORDS_PER_RANK, SEED]))
    return path


@pytest.mark.parametrize("mode", ["write_shared", "iwrite_shared", "write_ordered",
                                  "write_ordered_split"])
def test_every_record_exactly_once(mode, any_dir, mpirun, program):
    path = any_dir / "records"
    passed(mpirun(RANKS, [program("records"), path, mode, RECORDS_PER_RANK, SEED]))
    ordered = ["ordered"] if mode.startswith("write_ordered") else []
    out = records_check(program, path, "records", RANKS, RECORDS_PER_RANK, SEED, *ordered)
    assert f"records={RANKS * RECORDS_PER_RANK} " in out
    assert hidden_files(any_dir) == []


@pytest.mark.parametrize("mode", ["read_shared", "read_ordered"])
def test_reading_back_returns_every_byte_once(mode, written_file, mpirun, program):
    passed(mpirun(RANKS, [program("records"), written_file, mode, CHUNK]))
    ordered = ["ordered"] if mode == "read_ordered" else []
    out = records_check(program, written_file, "chunks", RANKS, CHUNK, *ordered)
    size = written_file.stat().st_size
    assert f"bytes_read={size} ok" in out


@pytest.mark.parametrize("mode", ["write_shared", "write_ordered"])
def test_several_nodes_use_mpi_atomics(mode, tmp_path, mpirun, program):
    """PIOX_HOSTNAME splits the ranks into two "nodes": the pointer then lives on
    rank 0 behind MPI_Fetch_and_op instead of in shared memory."""
    path = tmp_path / "records"
    result = mpirun(4, [program("records"), path, mode, RMA_RECORDS_PER_RANK, SEED],
                    hosts=["nodeA", "nodeB"], env={"PIOX_DEBUG": "1"})
    passed(result)
    assert "transport rma (several nodes)" in result.stderr
    ordered = ["ordered"] if mode == "write_ordered" else []
    records_check(program, path, "records", 4, RMA_RECORDS_PER_RANK, SEED, *ordered)


def test_a_communicator_keeps_its_node_answer_for_its_duplicates_only(tmp_path, mpirun, program):
    """Whether a communicator lies on one node is asked at its first open and kept on
    it, copied to its duplicates: MPI_COMM_WORLD over two "nodes" opened twice and
    then a duplicate of it must still take the rma transport, while each node's part
    (a split, not a duplicate) is asked anew and takes shm. Every file holds every
    rank's record once (comm_reuse.c checks)."""
    result = mpirun(4, [program("comm_reuse"), tmp_path], hosts=["nodeA", "nodeB"],
                    env={"PIOX_DEBUG": "1"})
    passed(result)
    assert result.stderr.count("transport rma (several nodes)") == 3 * 4
    assert result.stderr.count("transport shm (one node)") == 2 * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "duplicate.4", "host-of-rank0.2", "host-of-rank2.2", "world-again.4", "world.4"]


def liveness(mpirun, program, directory, env=None, sleep_limit=30, calls=1000):
    path = directory / "live"
    result = mpirun(RANKS, [program("liveness"), path, calls, sleep_limit], env=env)
    passed(result)
    records_check(program, path, "records", RANKS, calls, 7)
    match = re.search(r"writers_waited=(\d)", result.stdout)
    assert match, result.stdout
    return match.group(1) == "1"


def test_writers_do_not_wait_for_the_host(any_dir, mpirun, program):
    """The host sleeps outside MPI until 7 ranks x 1000 write_shared have finished
    (30 s at most): they finish without it."""
    assert not liveness(mpirun, program, any_dir)


def test_liveness_check_detects_waiting(tmp_path, mpirun, program):
    """The same check catches a transport that needs the host: MPICH's (ch4:ucx)
    MPI_Fetch_and_op waits for the target to enter MPI. Its writers cannot finish
    before the host wakes, so the host need not sleep the full 30 s; nor need they
    make 1000 calls each: their first already waits for the host."""
    assert liveness(mpirun, program, tmp_path, env={"PIOX_SFP_TRANSPORT": "rma"},
                    sleep_limit=10, calls=200)


@pytest.mark.parametrize("ranks", [1, 2, 4, 8])
def test_views_positions_append_and_seek(ranks, any_dir, mpirun, program, tmp_path):
    # A view with holes makes ROMIO's independent writes sieve, and data sieving
    # takes fcntl locks of its own (outside piox's shared pointer; lockless
    # detection is issue 3). On the lockless file system, switch sieving off.
    hints = tmp_path / "romio-hints"
    hints.write_text("romio_ds_write disable\n")
    passed(mpirun(ranks, [program("views"), any_dir], env={"ROMIO_HINTS": hints}))
    assert hidden_files(any_dir) == []


@pytest.mark.parametrize("ranks", [1, 4])
def test_bad_input_reports_errors(ranks, any_dir, mpirun, program):
    passed(mpirun(ranks, [program("errors"), any_dir]))


def test_running_out_of_communicators_is_an_error_that_says_why(tmp_path, mpirun, program):
    """Every open takes communicator contexts, which MPICH has 2,048 of a process:
    ROMIO's 2, and piox's 2 (the file's private duplicate and the shared pointer's
    own; before the parts shared the first, 3, and 409 files opened). Files opened
    and kept open until one fails: at 2 ranks it is piox's part of the open, which must
    fail on every rank with MPI_ERR_OTHER and MPICH's reason under piox's line, and
    leave the files already open working and the job able to go on once they are
    closed (many_files.c checks every file's records). Before, piox's duplicate
    called MPI_COMM_WORLD's handler and aborted the job, as stock MPICH 4.0.2 still
    does after about 1,020 files (ROMIO's duplicate; with MPI_COMM_WORLD's errors
    returning, it dies with SIGSEGV inside MPI_File_open instead)."""
    result = mpirun(2, [program("many_files"), tmp_path, "4000"])
    passed(result)
    opened = int(re.search(r"opened=(\d+)", result.stdout)[1])
    assert 500 <= opened < 4000, result.stdout  # 4 contexts a file: 2,048 / 4, less the job's own
    assert "other_class=1" in result.stdout, result.stdout
    assert f"piox: MPI_File_open of '{tmp_path}/f{opened}': cannot create the shared file pointer" \
        in result.stdout, result.stdout
    assert "Too many communicators" in result.stdout, result.stdout
    assert len(list(tmp_path.iterdir())) == opened + 2  # the failed one, created, and the last


def test_hints_switch_off_and_must_agree(tmp_path, mpirun, program):
    result = mpirun(4, [program("hints"), tmp_path])
    passed(result)
    assert "hidden_file_with_piox_sfp_off=1" in result.stdout  # ROMIO's own pointer
    assert "hidden_file_with_bad_value=0" in result.stdout     # piox's
    assert 'ignoring hint piox_sfp="maybe": expected on or off' in result.stderr


def test_environment_switch_turns_piox_off(tmp_path, lockless_dir, mpirun, program):
    """PIOX_SFP=off: the library's shared pointer again; on the lockless file system
    that means ROMIO's abort."""
    normal = mpirun(2, [program("records"), tmp_path / "r", "write_shared", 10, SEED],
                    env={"PIOX_SFP": "off", "PIOX_STATS": "1"})
    passed(normal)
    stats = [line for line in normal.stderr.splitlines() if "stats" in line]
    assert stats and all("shared pointer off" in line and "_shared=" not in line
                         for line in stats), normal.stderr
    logs = tmp_path / "logs"
    lockless = mpirun(2, romio.stderr_to_files(
        [program("records"), lockless_dir / "r", "write_shared", 10, SEED], logs),
        env={"PIOX_SFP": "off"})
    assert lockless.returncode != 0
    assert "File locking failed" in romio.logged_stderr(logs)


def test_stock_mpich_aborts_on_lockless_and_piox_does_not(tmp_path, lockless_dir, mpirun,
                                                          program):
    args = [program("records"), lockless_dir / "r", "write_shared", 100, SEED]
    logs = tmp_path / "logs"
    stock = mpirun(4, romio.stderr_to_files(args, logs), piox=False)
    assert stock.returncode != 0
    assert "File locking failed in ADIOI_GEN_SetLock" in romio.logged_stderr(logs)
    (lockless_dir / "r").unlink()
    for hidden in hidden_files(lockless_dir):
        (lockless_dir / hidden).unlink()
    passed(mpirun(4, args))
    records_check(program, lockless_dir / "r", "records", 4, 100, SEED)


def test_stats_show_what_piox_took_over(tmp_path, mpirun, program):
    result = mpirun(2, [program("records"), tmp_path / "r", "write_ordered", 3, SEED],
                    env={"PIOX_STATS": "1"})
    passed(result)
    lines = [l for l in result.stderr.splitlines() if "stats" in l]
    assert len(lines) == 2, result.stderr
    assert all("shared pointer shm" in l and "MPI_File_write_ordered=3" in l for l in lines)


@pytest.mark.parametrize("mode", ["write_ordered", "write_ordered_split", "read_ordered"])
def test_ordered_with_collective_io(mode, tmp_path, written_file, mpirun, program):
    """PIOX_ORDERED_IO=collective moves ordered data with MPI_File_*_at_all."""
    env = {"PIOX_ORDERED_IO": "collective"}
    if mode == "read_ordered":
        passed(mpirun(RANKS, [program("records"), written_file, mode, CHUNK], env=env))
        records_check(program, written_file, "chunks", RANKS, CHUNK, "ordered")
        return
    path = tmp_path / "records"
    passed(mpirun(4, [program("records"), path, mode, 500, SEED], env=env))
    records_check(program, path, "records", 4, 500, SEED, "ordered")
