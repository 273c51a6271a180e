"""The adio core's byte-range lock (piox_lock.h) across 8 real MPI processes.

test/programs/lock_service.c runs random acquire/release scripts and replays every
grant and release, in the order they really happened, through a sequential model
of the lock; and it checks that a writer queued behind a stream of readers gets in.
Across emulated nodes (PIOX_HOSTNAME) the lock is the one in MPI windows, with its
fast path; there it also counts the network round trips of an uncontended lock.
"""
import re

import pytest

RANKS = 8


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_range_lock_matches_the_sequential_model(mpirun, program, seed):
    result = mpirun(RANKS, [program("lock_service"), "range", "random", 400, seed], piox=False,
                    check=True)
    assert f"replayed {400 * 2 * RANKS} grants and releases" in result.stdout
    assert " No Errors" in result.stdout


def test_waitflag_mutex_matches_the_sequential_model(mpirun, program):
    # The paper's mutex is slow here (every epoch waits for rank 0 to progress):
    # few iterations.
    result = mpirun(RANKS, [program("lock_service"), "mutex", "random", 15, 1], piox=False,
                    check=True)
    assert " No Errors" in result.stdout


def test_waitflag_mutex_across_two_nodes(mpirun, program):
    result = mpirun(4, [program("lock_service"), "mutex", "random", 15, 2], piox=False,
                    hosts=["node-a", "node-b"], check=True)
    assert " No Errors" in result.stdout


def test_the_replay_catches_holders_that_conflict(mpirun, program):
    """Without a lock the same scripts overlap: the check must say so."""
    result = mpirun(RANKS, [program("lock_service"), "none", "random", 400, 1], piox=False)
    assert result.returncode != 0
    assert "while rank" in result.stderr


def test_range_lock_across_two_nodes_matches_the_model(mpirun, program):
    """Across nodes the shards live in MPI windows (lock_rma_range.cpp). Each epoch
    needs its home rank inside MPI, slow with 4 ranks on 2 CPUs: few iterations."""
    result = mpirun(4, [program("lock_service"), "range", "random", 60, 1], piox=False,
                    hosts=["node-a", "node-b"], check=True)
    assert f"replayed {60 * 2 * 4} grants and releases" in result.stdout


def test_a_writer_behind_streaming_readers_gets_in(mpirun, program):
    result = mpirun(RANKS, [program("lock_service"), "range", "fairness", 400], piox=False,
                    check=True)
    assert " No Errors" in result.stdout


def test_a_writer_behind_streaming_readers_gets_in_across_two_nodes(mpirun, program):
    result = mpirun(4, [program("lock_service"), "range", "fairness", 100], piox=False,
                    hosts=["node-a", "node-b"], check=True)
    assert " No Errors" in result.stdout


def test_an_uncontended_lock_across_two_nodes_costs_two_round_trips(mpirun, program):
    """The last rank locks bytes whose shard lives on rank 0, on the other node, while
    rank 0 waits inside MPI: one round trip to take the idle shard, one to give it
    back (lock_rma_range.cpp's fast path). The tables alone counted 6: an exclusive
    epoch (lock, get and flush, put and unlock) to enter and another to leave."""
    result = mpirun(2, [program("lock_service"), "range", "uncontended", 200], piox=False,
                    hosts=["node-a", "node-b"], check=True)
    found = re.search(r"round trips per acquire and release: ([0-9.]+)", result.stdout)
    assert found, result.stdout
    assert float(found.group(1)) <= 2, result.stdout
