"""Model checking of the byte-range reader/writer lock protocol with spin.

test/model/range_lock.pml models the protocol of the shard tables,
test/model/rma_fast_path.pml the lock across nodes with its fast path (a mode word and
claims beside the tables), and test/model/optimistic_read.pml the optimistic reads
beside the writers' marks (atomicity of a kept read, by assertion). For each, spin proves by exhaustive search mutual exclusion
(assertions), freedom from deadlock (invalid end states) and that every request is
eventually granted under weak fairness (LTL, acceptance cycles). The broken variants
show that each check can fail. Needs spin and gcc, not the piox build.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[1] / "model"
RANGE_LOCK = MODELS / "range_lock.pml"
FAST_PATH = MODELS / "rma_fast_path.pml"
OPTIMISTIC_READ = MODELS / "optimistic_read.pml"
SPIN = shutil.which("spin")
GCC = shutil.which("gcc")
TIMEOUT = 600

pytestmark = pytest.mark.skipif(
    not SPIN or not GCC,
    reason="spin (Debian package `spin`) and gcc are needed to check test/model/*.pml")

# pan's DFS stack must hold the deepest path, or the search is silently cut short
# (pan then says "max search depth too small"); depths seen: range_lock 23k (3
# processes), 1.07M (4); rma_fast_path 2.04M (3; 4 processes exceed memory);
# optimistic_read 77 (its processes make a bounded number of requests; it ignores N).
DEPTH = {(RANGE_LOCK, 3): 1_000_000, (RANGE_LOCK, 4): 4_000_000, (FAST_PATH, 3): 4_000_000,
         (OPTIMISTIC_READ, 3): 10_000}
# pan's hash table, 2^N slots, clears its memory before the search: the default 2^24
# (128 MiB) cost a second a run, longer than the whole search of range_lock with 3
# processes (at most 240k states). Slots are chained: a small table stays exhaustive.
HASH_BITS = {(RANGE_LOCK, 3): 20, (RANGE_LOCK, 4): 24, (FAST_PATH, 3): 24,
             (OPTIMISTIC_READ, 3): 24}
# gcc -O2 takes 2 to 9 s on a pan.c, and pays back only in the long proofs over the
# large state spaces (a 26 s search at -O0 takes 16 at -O2). The other verifiers
# (range_lock with 3 processes, and the broken variants, which stop at their first
# error) search for a few seconds at most: they compile at -O0, in about a second.
OPTIMISED = {(RANGE_LOCK, 4), (FAST_PATH, 3), (OPTIMISTIC_READ, 3)}
# -DSAFETY: no cycle detection, faster; -DNOCLAIM: leave out the LTL claims, so that
# invalid end states (deadlocks) are checked too.
SAFETY_FLAGS = ("-DSAFETY", "-DNOCLAIM")
LIVENESS_FLAGS = ("-DNFAIR=3",)


@pytest.fixture(scope="module")
def pan(tmp_path_factory):
    """pan(processes, pan_flags, *pan_args, variant=None, model=RANGE_LOCK) -> pan's
    output. variant: the model's macros to define, separated by spaces. Each verifier is generated and compiled once, in its own directory (pan
    writes its trail there)."""
    built = {}

    def build(model, processes, flags, variant):
        key = (model, processes, flags, variant)
        if key not in built:
            workdir = tmp_path_factory.mktemp("pan")
            defines = [f"-DN={processes}"] + [f"-D{name}" for name in (variant or "").split()]
            _run([SPIN, "-a", *defines, str(model)], workdir)
            # -w: gcc cannot see that _pid stays in range and warns about pan's indexing.
            optimise = "-O2" if (model, processes) in OPTIMISED and not variant else "-O0"
            _run([GCC, optimise, "-w", *flags, "-o", "pan", "pan.c"], workdir)
            built[key] = workdir
        return built[key]

    def run(processes, flags, *args, variant=None, model=RANGE_LOCK):
        workdir = build(model, processes, flags, variant)
        result = subprocess.run(["./pan", f"-m{DEPTH[model, processes]}",
                                 f"-w{HASH_BITS[model, processes]}", *args], cwd=workdir,
                                capture_output=True, text=True, timeout=TIMEOUT)
        return result.stdout + result.stderr

    return run


def _run(cmd, cwd):
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {result.returncode}\n{result.stdout}{result.stderr}")


def assert_proved(output):
    """A proof: no error, and the whole state space was searched."""
    assert "errors: 0" in output, output
    assert "Full statespace search" in output, output
    assert "max search depth too small" not in output, output
    assert "search not completed" not in output, output


@pytest.mark.parametrize("processes", [3, 4])
def test_mutual_exclusion_and_no_deadlock(pan, processes):
    output = pan(processes, SAFETY_FLAGS)
    assert_proved(output)
    assert "assertion violations\t+" in output and "invalid end states\t+" in output, output


# Every process runs the same code and the protocol never breaks ties by process id,
# so with 4 processes the property of process 0 stands for all (README: all 4 pass).
@pytest.mark.parametrize("processes,process", [(3, 0), (3, 1), (3, 2), (4, 0)])
def test_every_request_is_granted(pan, processes, process):
    output = pan(processes, LIVENESS_FLAGS, "-a", "-f", "-N", f"live{process}")
    assert_proved(output)
    assert "acceptance   cycles \t+ (fairness enabled)" in output, output


# The model can fail: each broken protocol is caught, by the check that should catch it.
def test_visiting_shards_out_of_order_deadlocks(pan):
    output = pan(3, SAFETY_FLAGS, variant="BROKEN_ORDER")
    assert "invalid end state" in output and "errors: 1" in output, output


def test_granting_without_checking_breaks_mutual_exclusion(pan):
    output = pan(3, SAFETY_FLAGS, variant="BROKEN_NO_CHECK")
    assert "assertion violated" in output and "errors: 1" in output, output


def test_overtaking_earlier_waiters_starves_a_writer(pan):
    # Readers that overtake a waiting writer are safe, but the writer may wait forever.
    assert_proved(pan(3, SAFETY_FLAGS, variant="BROKEN_BARGING"))
    output = pan(3, LIVENESS_FLAGS, "-a", "-f", "-N", "live0", variant="BROKEN_BARGING")
    assert "acceptance cycle" in output and "errors: 1" in output, output


# Write combining (issue 19), modelled before the code: a granted combinable write
# takes the waiting ones inside its request and writes them with its own.
def test_combined_writes_keep_exclusion_and_queue_order(pan):
    output = pan(3, SAFETY_FLAGS, variant="COMBINE")
    assert_proved(output)
    assert "assertion violations\t+" in output and "invalid end states\t+" in output, output


def test_combined_writes_every_request_is_served(pan):
    output = pan(3, LIVENESS_FLAGS, "-a", "-f", "-N", "live0", variant="COMBINE")
    assert_proved(output)
    assert "acceptance   cycles \t+ (fairness enabled)" in output, output


def test_taking_past_a_conflicting_request_breaks_queue_order(pan):
    output = pan(3, SAFETY_FLAGS, variant="COMBINE BROKEN_TAKE_PAST")
    assert "assertion violated" in output and "slot_rank" in output, output
    assert "errors: 1" in output, output


def test_taking_a_write_wider_than_the_combiner_breaks_mutual_exclusion(pan):
    output = pan(3, SAFETY_FLAGS, variant="COMBINE BROKEN_TAKE_WIDER")
    assert "assertion violated" in output and "writers_in_cs" in output, output
    assert "errors: 1" in output, output


# The lock across nodes: the fast path (mode word, claims) beside the tables.
def test_fast_path_mutual_exclusion_and_no_deadlock(pan):
    output = pan(3, SAFETY_FLAGS, model=FAST_PATH)
    assert_proved(output)
    assert "assertion violations\t+" in output and "invalid end states\t+" in output, output


# As above, the processes are identical (the mutex queue is FIFO, no tie is broken by
# process id): process 0 stands for all (README: all 3 pass).
def test_fast_path_every_request_is_granted(pan):
    output = pan(3, LIVENESS_FLAGS, "-a", "-f", "-N", "live0", model=FAST_PATH)
    assert_proved(output)
    assert "acceptance   cycles \t+ (fairness enabled)" in output, output


def test_leaving_a_fast_holder_out_of_the_table_is_caught(pan):
    # The holder left out then leaves a table it is not in (the first error found; with
    # pan -c0 a conflicting request granted beside it shows up too).
    output = pan(3, SAFETY_FLAGS, variant="BROKEN_NO_MOVE", model=FAST_PATH)
    assert "assertion violated (slot_state[" in output and "errors: 1" in output, output


def test_reading_a_claim_before_it_lands_breaks_mutual_exclusion(pan):
    output = pan(3, SAFETY_FLAGS, variant="BROKEN_STALE_CLAIM", model=FAST_PATH)
    assert "assertion violated ((writers_in_cs[c]<=1)" in output and "errors: 1" in output, output


def test_releasing_fast_without_compare_and_swap_is_caught(pan):
    # The holder moved into the table never leaves it, and the word says idle next to
    # a live table: the next fast acquire trips the invariant.
    output = pan(3, SAFETY_FLAGS, variant="BROKEN_BLIND_RELEASE", model=FAST_PATH)
    assert "assertion violated (live_slots[" in output and "errors: 1" in output, output


# Optimistic reads (issue 19): a reader that takes no lock keeps its read only when
# the writers' marks show that no write of its bytes overlapped it. 16M states, about
# 20 s and 0.8 GB (-DCOLLAPSE compresses the stored states).
def test_a_kept_optimistic_read_overlapped_no_write(pan):
    output = pan(3, SAFETY_FLAGS + ("-DCOLLAPSE",), model=OPTIMISTIC_READ)
    assert_proved(output)
    assert "assertion violations\t+" in output, output


# Each broken variant is caught with one write per writer (a few seconds at most).
@pytest.mark.parametrize("variant", ["BROKEN_PARITY", "BROKEN_LATE_MARK", "BROKEN_NO_RECHECK"])
def test_a_broken_optimistic_read_keeps_a_torn_read(pan, variant):
    output = pan(3, SAFETY_FLAGS, variant=f"WRITES=1 {variant}", model=OPTIMISTIC_READ)
    assert "assertion violated" in output and "ended[" in output, output
    assert "errors: 1" in output, output
