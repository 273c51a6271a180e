"""Atomic mode's switch, its error paths and every kind of data access
(test/programs/atomic_errors.c), and how piox shows its decisions: PIOX_DEBUG for
the lockless probe and the lock kind, MPI_File_get_info for the hints in effect."""
import pytest


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_switch_errors_and_every_routine(ranks, any_dir, mpirun, program):
    result = mpirun(ranks, [program("atomic_errors"), any_dir])
    assert result.returncode == 0, result.stdout + result.stderr
    assert " No Errors" in result.stdout


def test_mutex_lock_too(tmp_path, mpirun, program):
    result = mpirun(4, [program("atomic_errors"), tmp_path], env={"PIOX_ATOMIC_LOCK": "mutex"})
    assert result.returncode == 0, result.stdout + result.stderr


def test_debug_shows_the_lockless_decision_and_the_lock(tmp_path, lockless_dir, mpirun,
                                                        program):
    for directory, verdict in ((tmp_path, "fcntl locks work"), (lockless_dir, "fcntl locks fail")):
        result = mpirun(2, [program("atomic_errors"), directory], env={"PIOX_DEBUG": "1"})
        assert result.returncode == 0, result.stderr
        assert verdict in result.stderr
        assert "atomic mode with range locks" in result.stderr
        # The probe leaves nothing behind.
        assert not [p for p in directory.iterdir() if p.name.startswith(".piox-lockprobe")]


def test_two_nodes_use_range_locks_in_windows(tmp_path, mpirun, program):
    result = mpirun(4, [program("atomic_errors"), tmp_path], env={"PIOX_DEBUG": "1"},
                    hosts=["node-a", "node-b"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "atomic mode with range locks" in result.stderr


def test_overlapping_writers_across_two_nodes(any_dir, mpirun, program):
    result = mpirun(4, [program("atomic_overlap"), any_dir, "--rounds", "20"],
                    hosts=["node-a", "node-b"])
    assert result.returncode == 0, result.stdout + result.stderr
