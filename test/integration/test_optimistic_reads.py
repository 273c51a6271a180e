"""Optimistic reads of the byte-range lock (piox_lock_optimistic_begin/_end, issue 19)
beside writers that tear, in a real file, checked byte by byte.

test/programs/optimistic_reads.c: rank 0 rewrites one span and rank 1 its neighbour,
which shares a block of the write marks with it, each in pieces with yields between them; the other
ranks read both spans, optimistically where the lock lets them. Every read kept must
find each span one byte value throughout. The control keeps every read that began,
valid or not, and must see torn ones; so the check can fail. The atomic-mode tests
(test_atomic_noncontig_readers.py, test_atomic_mode.py) run the same reads through
MPI-IO.
"""
import re

import pytest


def _reads(stdout):
    match = re.search(r"reads: (\d+) kept, (\d+) discarded, (\d+) not begun, (\d+) torn", stdout)
    assert match, stdout
    return dict(zip(("kept", "discarded", "not_begun", "torn"), map(int, match.groups())))


@pytest.mark.parametrize("ranks", [3, 6])
def test_a_kept_optimistic_read_is_never_torn(mpirun, program, tmp_path, ranks):
    result = mpirun(ranks, [program("optimistic_reads"), "check", 300, tmp_path], piox=False,
                    check=True)
    assert " No Errors" in result.stdout
    reads = _reads(result.stdout)
    assert reads["torn"] == 0, result.stdout
    assert reads["kept"] > 0, result.stdout   # the optimistic path ran
    assert sum(reads[k] for k in ("kept", "discarded", "not_begun")) == 300 * (ranks - 2)


def test_the_control_keeping_every_read_sees_torn_ones(mpirun, program, tmp_path):
    result = mpirun(4, [program("optimistic_reads"), "blind", 400, tmp_path], piox=False,
                    check=True)
    assert " No Errors" in result.stdout   # it fails when it saw no torn read
    assert _reads(result.stdout)["torn"] > 0, result.stdout


def test_across_nodes_no_optimistic_read_begins(mpirun, program, tmp_path):
    """Across nodes the lock lives in MPI windows and has no write marks: every read
    takes the read lock."""
    result = mpirun(4, [program("optimistic_reads"), "check", 50, tmp_path], piox=False,
                    hosts=["node-a", "node-b"], check=True)
    assert " No Errors" in result.stdout
    reads = _reads(result.stdout)
    assert reads == {"kept": 0, "discarded": 0, "not_begun": 100, "torn": 0}, result.stdout
