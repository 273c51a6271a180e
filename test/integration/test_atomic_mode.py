"""Atomic mode (MPI_File_set_atomicity) on overlapping noncontiguous accesses.

test/programs/atomic_overlap.c does the checking: every int it writes is a stamp
naming its access, and after each round it verifies that each overlap of two writes
is wholly one of them, and that a read sees each concurrent write all-new or
all-old. Here it runs under piox on a normal directory and on the lockless fixture
(where piox's own range locks must replace ROMIO's fcntl ones), through every kind
of data-access routine and both lock modes; stock MPICH on a normal directory,
where ROMIO's fcntl locking is correct, is the reference. The summary counts are
checked too, so a run that silently skipped its checks fails, and the bytes left in
the writers' file are checked here independently of the program.
"""
import array
import re

import pytest

from conftest import describe

ROUNDS = 60
RANK_COUNTS = [2, 4, 8]
VARIANT_RANKS = 4
# Each routine kind piox must lock around (explicit offset is the default).
ROUTINE_VARIANTS = {
    "write_at": [],
    "write": ["--pointer"],
    "write_at_all": ["--collective"],
    "write_all": ["--pointer", "--collective"],
    "iwrite_at": ["--nonblocking"],
    "iwrite": ["--pointer", "--nonblocking"],
    "iwrite_at_all": ["--nonblocking", "--collective"],
    # MPI-4's large-count forms: readers against a _c writer must not see it torn.
    "write_at_c": ["--large-count"],
    "write_all_c": ["--pointer", "--collective", "--large-count"],
    "iwrite_at_all_c": ["--nonblocking", "--collective", "--large-count"],
}
LOCK_MODES = ["range", "mutex"]
# The program's layout (see its header).
SHIFT, BLOCK, DEFAULT_BLOCKS = 32, 48, 32
SUMMARY = re.compile(r"atomic_overlap: (.*)$", re.MULTILINE)


def summary(result):
    match = SUMMARY.search(result.stdout)
    assert match, f"no summary line\n{describe(result)}"
    return {k: v for k, v in (item.split("=", 1) for item in match.group(1).split())}


def expected_counts(nranks, rounds):
    """What atomic_overlap must report having checked with both phases."""
    writers = [r for r in range(nranks) if r % 2 == 0 and not (r == nranks - 1 and nranks % 2)]
    readers = nranks - len(writers)
    # Ring of overlaps: n pairs, except that 2 ranks form one pair (overlapping twice).
    pairs = 1 if nranks == 2 else nranks
    # Each reader cuts into its two neighbours, which are one rank when there are 2.
    per_read = 1 if nranks == 2 else 2
    return {"writes": nranks * rounds, "overlapping_pairs": pairs * rounds,
            "reads": readers * rounds, "intersections": readers * rounds * per_read,
            "violations": 0}


def assert_final_writers_file(path, nranks, rounds, blocks=DEFAULT_BLOCKS):
    """After the last round, every element written holds a last-round stamp of a
    rank whose blocks cover it; every other element is still 0."""
    stride = SHIFT * nranks
    values = array.array("I", path.read_bytes())
    assert len(values) == stride * (blocks + 1), f"{path}: {len(values)} ints"
    covering = [[] for _ in values]
    for rank in range(nranks):
        for k in range(blocks):
            start = SHIFT * rank + k * stride
            for e in range(start, start + BLOCK):
                covering[e].append(rank)
    for e, (value, ranks) in enumerate(zip(values, covering)):
        allowed = {rounds << 16 | (r + 1) for r in ranks} or {0}
        assert value in allowed, (f"{path}: byte {4 * e} holds {value:#010x}, "
                                  f"expected one of {sorted(hex(a) for a in allowed)}")


def run_checked(mpirun, program, nranks, directory, extra=(), piox=True, rounds=ROUNDS):
    argv = [program("atomic_overlap"), directory, "--rounds", rounds, *extra]
    result = mpirun(nranks, argv, piox=piox)
    assert result.returncode == 0 and " No Errors" in result.stdout, describe(result)
    counts = summary(result)
    assert counts["atomicity"] == "1", counts
    for key, value in expected_counts(nranks, rounds).items():
        assert int(counts[key]) == value, f"{key}={counts[key]}, expected {value}: {counts}"
    assert_final_writers_file(directory / "atomic_overlap.writers", nranks, rounds)
    return counts


@pytest.mark.parametrize("nranks", RANK_COUNTS, ids=lambda n: f"{n}ranks")
def test_piox_keeps_overlaps_whole(mpirun, program, any_dir, nranks):
    run_checked(mpirun, program, nranks, any_dir)


@pytest.mark.parametrize("routine", ROUTINE_VARIANTS)
def test_piox_locks_every_routine_kind(mpirun, program, any_dir, routine):
    run_checked(mpirun, program, VARIANT_RANKS, any_dir, ROUTINE_VARIANTS[routine])


@pytest.mark.parametrize("lock_mode", LOCK_MODES)
def test_piox_lock_modes(mpirun, program, any_dir, lock_mode):
    run_checked(mpirun, program, VARIANT_RANKS, any_dir,
                ["--hint", f"piox_atomic_lock={lock_mode}"])


@pytest.mark.parametrize("routine", ROUTINE_VARIANTS)
def test_stock_mpich_reference_on_normal_dir(mpirun, program, tmp_path, routine):
    """ROMIO's fcntl-locked atomic mode is correct where fcntl works: this shows the
    program's checks accept a correct implementation."""
    run_checked(mpirun, program, VARIANT_RANKS, tmp_path, ROUTINE_VARIANTS[routine],
                piox=False)
