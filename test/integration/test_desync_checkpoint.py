"""DesyncFS's checkpoint (issue 18, desync/NOTES.md 2.6): with desync_checkpoint=PATH
every replicated version's blocks are written into one of two slots of the file and
a record per slot names the version it holds whole. A job restarted with the same
files resumes from the newest valid record, with any number of processes and any
layout, and its results are the bytes of a run that never stopped.

The whole job dies for real here (desync_test_abort: MPI_Abort on one rank at a
version), and the file is damaged by hand the ways a crash can damage it: a torn
record, a slot half written."""
import re
import struct

import pytest

from test_desync_jacobi import BLOCK, JACOBI_DESYNC, N, VERSIONS, reference

R = 5
RECORD = struct.Struct("<8sQqQQ")  # magic, identity, version, stride, check (checkpoint.cpp)
SLOTS_AT, STRIDE = 4096, 64 + BLOCK * BLOCK * 8
SLOW = ["--cost-us", "200"]  # 16 ms a version at 4 ranks: the map records versions as it goes


@pytest.fixture(scope="module")
def expected():
    return reference(N, VERSIONS).tobytes()


def checkpoint_hints(path, block=BLOCK * BLOCK * 8, versions=VERSIONS):
    words = [f"desync_replicate={R}", f"desync_checkpoint={path}", f"desync_checkpoint_block={block}"]
    return [argument for word in words for argument in ("--hint", word)]


def jacobi(mpirun, ranks, output, path, *options, versions=VERSIONS, block=BLOCK * BLOCK * 8):
    argv = [JACOBI_DESYNC, N, BLOCK, versions, output, *checkpoint_hints(path, block), *options]
    return mpirun(ranks, argv, piox=False, timeout=120)


def records(path):
    """{slot: version} of the records whose check holds (fnv1a of the fields before it)."""
    data = path.read_bytes()
    valid = {}
    for slot in (0, 1):
        magic, identity, version, stride, check = RECORD.unpack_from(data, slot * 512)
        h = 1469598103934665603
        for byte in data[slot * 512:slot * 512 + 32]:
            h = ((h ^ byte) * 1099511628211) % 2 ** 64
        if magic == b"DESYNCK1" and check == h:
            valid[slot] = version
    return valid


def stat(stdout, key):
    return int(re.search(rf"\b{key}=(-?\d+)", stdout)[1])


def crash(mpirun, tmp_path, ranks=4, at="2:23"):
    """A job that dies at a version: returns the checkpoint's path."""
    path = tmp_path / "checkpoint"
    died = jacobi(mpirun, ranks, tmp_path / "died", path, *SLOW, "--hint", f"desync_test_abort={at}")
    assert died.returncode == 3, died.stderr  # MPI_Abort's code (its message may not get out)
    assert records(path), "the job died before any version was recorded"
    return path


def test_a_finished_job_run_again_resumes_and_gives_the_same_bytes(mpirun, tmp_path, expected):
    path = tmp_path / "checkpoint"
    first = jacobi(mpirun, 4, tmp_path / "first", path)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "first").read_bytes() == expected
    assert stat(first.stdout, "resumed_from") == -1
    assert stat(first.stdout, "checkpointed") > 0
    newest = max(records(path).values())
    again = jacobi(mpirun, 4, tmp_path / "again", path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again").read_bytes() == expected
    assert stat(again.stdout, "resumed_from") == newest
    blocks = (N // BLOCK) ** 2
    assert stat(again.stdout, "computed") == blocks * (VERSIONS - newest)  # the rest, once


@pytest.mark.parametrize("ranks,options", [
    (4, []),
    (9, []),                                    # more processes than the job that died
    (2, ["--rebalance", "7"]),                  # fewer, and periods (the first one afresh)
    (5, ["--hint", "desync_loss_timeout=1", "--hint", "desync_test_stop=3:30"]),  # and a loss
])
def test_a_job_that_died_resumes_with_any_processes(mpirun, tmp_path, expected, ranks, options):
    path = crash(mpirun, tmp_path)
    newest = max(records(path).values())
    assert 0 <= newest <= 23
    done = jacobi(mpirun, ranks, tmp_path / "grid", path, *options)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "grid").read_bytes() == expected
    assert stat(done.stdout, "resumed_from") == newest


def slot_holds(path, slot, version):
    """Whether every block of the slot still holds that version: the job may have died
    while it rewrote the slot for a newer one (each block's header begins with the
    address's rank, the file, then the version: desync/lib/store.h)."""
    data = path.read_bytes()
    blocks = (N // BLOCK) ** 2
    start = SLOTS_AT + slot * blocks * STRIDE
    return all(struct.unpack_from("<iii", data, start + i * STRIDE)[2] == version for i in range(blocks))


def tear_newest_record(path):
    """Flips the newest valid record's version field (its check no longer holds):
    returns the records as they were."""
    valid = records(path)
    if len(valid) < 2:
        pytest.fail(f"both slots should hold a version: {valid}")
    newest_slot = max(valid, key=valid.get)
    data = bytearray(path.read_bytes())
    data[newest_slot * 512 + 16] ^= 0xFF
    path.write_bytes(bytes(data))
    return valid, 1 - newest_slot


def test_a_torn_record_leaves_the_other_slot(mpirun, tmp_path, expected):
    """A finished job's two slots are both whole (nothing newer was begun): with the
    newest record torn, the restart resumes from the other."""
    path = tmp_path / "checkpoint"
    first = jacobi(mpirun, 4, tmp_path / "first", path)
    assert first.returncode == 0, first.stderr
    valid, other_slot = tear_newest_record(path)
    assert slot_holds(path, other_slot, valid[other_slot])
    done = jacobi(mpirun, 4, tmp_path / "grid", path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "grid").read_bytes() == expected
    assert stat(done.stdout, "resumed_from") == valid[other_slot]


def test_records_that_reach_a_process_late_still_end_with_the_last_version(mpirun, tmp_path, expected):
    """The other processes learn the map's records from its messages. One that has not
    heard of the last record holds back the blocks waiting for it, and the end must
    still write and record them (stop 48's CI: a finished job's older slot held
    version 40 under record 30). desync_test_late_records makes rank 2 hear of no
    record until the end, so its blocks from version 2R on all wait."""
    path = tmp_path / "checkpoint"
    first = jacobi(mpirun, 4, tmp_path / "first", path, "--hint", "desync_test_late_records=2")
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "first").read_bytes() == expected
    last = VERSIONS // R * R
    valid = records(path)
    assert sorted(valid.values()) == [last - R, last], valid
    for slot, version in valid.items():
        assert slot_holds(path, slot, version), (slot, version)
    again = jacobi(mpirun, 4, tmp_path / "again", path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again").read_bytes() == expected
    assert stat(again.stdout, "resumed_from") == last
    assert stat(again.stdout, "computed") == (N // BLOCK) ** 2 * (VERSIONS - last)


def test_a_torn_record_after_a_crash_is_used_or_refused(mpirun, tmp_path, expected):
    """After a crash the other slot may be half rewritten for a newer version (allowed:
    its version was no longer the newest). Tearing the newest record by hand then
    makes a second fault, and the restart must refuse the file rather than resume
    from mixed blocks; if the slot is whole it must resume from it."""
    path = crash(mpirun, tmp_path)
    valid, other_slot = tear_newest_record(path)  # the record only: the slots' blocks stay
    other_whole = slot_holds(path, other_slot, valid[other_slot])
    done = jacobi(mpirun, 4, tmp_path / "grid", path)
    if not other_whole:
        assert done.returncode == 1 and "is damaged: the record of block (0, " in done.stderr, done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "grid").read_bytes() == expected
    assert stat(done.stdout, "resumed_from") == valid[other_slot]


def test_the_slot_no_record_names_may_be_garbage(mpirun, tmp_path, expected):
    """A crash in the middle of writing a version leaves its slot half written; only
    the slot the newest record names is read."""
    path = crash(mpirun, tmp_path)
    valid = records(path)
    newest_slot = max(valid, key=valid.get)
    slot_bytes = (N // BLOCK) ** 2 * STRIDE
    data = bytearray(path.read_bytes())
    start = SLOTS_AT + (1 - newest_slot) * slot_bytes
    data[start:start + slot_bytes] = b"\xa5" * slot_bytes
    path.write_bytes(bytes(data))
    done = jacobi(mpirun, 4, tmp_path / "grid", path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "grid").read_bytes() == expected
    assert stat(done.stdout, "resumed_from") == valid[newest_slot]


def test_a_damaged_block_record_is_an_error(mpirun, tmp_path):
    path = crash(mpirun, tmp_path)
    valid = records(path)
    newest_slot = max(valid, key=valid.get)
    data = bytearray(path.read_bytes())
    at = SLOTS_AT + newest_slot * (N // BLOCK) ** 2 * STRIDE + 7 * STRIDE + 8  # block 7's address
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    done = jacobi(mpirun, 4, tmp_path / "grid", path)
    assert done.returncode == 1 and "is damaged: the record of block (0, " in done.stderr, done.stderr


@pytest.mark.parametrize("make,message", [
    (lambda path: path.write_text("my thesis, chapter 3\n" * 100), "is not a DesyncFS checkpoint"),
    (None, "belongs to another job"),
])
def test_a_file_that_is_not_this_jobs_checkpoint_is_left_alone(mpirun, tmp_path, make, message):
    path = tmp_path / "checkpoint"
    if make:
        make(path)
    else:  # another job's: 30 versions instead of 40
        other = jacobi(mpirun, 4, tmp_path / "other", path, versions=30)
        assert other.returncode == 0, other.stderr
    before = path.read_bytes()
    done = jacobi(mpirun, 4, tmp_path / "grid", path)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert done.stderr.count(message) == 4  # every rank says why
    assert path.read_bytes() == before


@pytest.mark.parametrize("words,message", [
    (["desync_checkpoint=/tmp/x"], "desync_checkpoint needs desync_replicate"),
    (["desync_replicate=5", "desync_checkpoint=/tmp/x"], "desync_checkpoint needs desync_replicate"),
    (["desync_checkpoint_block=100"], "desync_checkpoint_block without desync_checkpoint"),
    (["desync_checkpoint_block=0"], 'desync_checkpoint_block="0"'),
    (["desync_test_abort=4:1"], "RANK from 0 to 3"),
    (["desync_test_abort=1"], 'desync_test_abort="1"'),
    (["desync_test_late_records=1"], "with desync_checkpoint"),  # no checkpoint
    (["desync_replicate=5", "desync_checkpoint=/tmp/x", "desync_checkpoint_block=128",
      "desync_test_late_records=0"], 'desync_test_late_records="0"'),  # the map's own rank
])
def test_bad_checkpoint_hints_are_refused(mpirun, tmp_path, words, message):
    hints = [argument for word in words for argument in ("--hint", word)]
    done = mpirun(4, [JACOBI_DESYNC, N, BLOCK, VERSIONS, tmp_path / "grid", *hints], piox=False, timeout=60)
    assert done.returncode == 1 and message in done.stderr, done.stderr


def test_a_block_larger_than_announced_is_an_error(mpirun, tmp_path):
    done = jacobi(mpirun, 4, tmp_path / "grid", tmp_path / "checkpoint", block=100)
    assert done.returncode == 1 and "more than desync_checkpoint_block=100" in done.stderr, done.stderr
