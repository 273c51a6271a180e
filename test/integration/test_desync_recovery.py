"""DesyncFS's crash recovery (issue 18, desync/NOTES.md 2.6): with desync_replicate=R
each process's blocks of every R-th version also go to its buddy; a process that
stops reporting for desync_loss_timeout seconds is declared lost and its buddy
makes its chunks again from the replica. MPICH ends a job whose process really
dies, so a process stops logically (desync_test_stop=RANK:VERSION): it drops every
block it holds and goes silent; with :SECONDS it only pauses, is declared lost
wrongly, and comes back (its blocks then are duplicates, accepted when identical).

Whatever the schedule, the results must be the bytes of the run without a loss:
the Jacobi grid equals the numpy reference (test_desync_jacobi's), the 1-D chain
equals its hash chain (test_desync_gc's), and every live rank agrees on the losses."""
import random
import re

import pytest

from test_desync_gc import chain_reference, draw as draw_schedule
from test_desync_jacobi import BLOCK, JACOBI_DESYNC, N, VERSIONS, reference

TIMEOUT = "desync_loss_timeout=1"  # heartbeats every 0.1 s: ten missed


@pytest.fixture(scope="module")
def expected():
    return reference(N, VERSIONS).tobytes()


def hints(*words):
    return [argument for word in words for argument in ("--hint", word)]


def counts(stdout):
    return {key: float(value) for key, value in re.findall(r"(\w+)=([0-9.]+)", stdout)}


@pytest.mark.parametrize("ranks,options", [
    (4, hints("desync_replicate=5", TIMEOUT, "desync_test_stop=2:12")),   # restarts from 10
    (4, hints("desync_replicate=25", TIMEOUT, "desync_test_stop=1:30")),  # from 25
    (2, hints("desync_replicate=5", TIMEOUT, "desync_test_stop=1:6")),    # one process left
    (9, hints("desync_replicate=5", TIMEOUT, "desync_test_stop=8:39")),   # before the last version
    (4, hints("desync_replicate=1", TIMEOUT, "desync_test_stop=3:0")),    # at once
    # Later periods are laid out over the survivors only.
    (5, ["--rebalance", "7", *hints("desync_replicate=3", TIMEOUT, "desync_test_stop=2:15")]),
    (9, ["--rebalance", "10", "--balance", "throughput", "--cost-us", "50", "--laggard", "4:4",
         *hints("desync_replicate=5", TIMEOUT, "desync_test_stop=4:17")]),
    # Wrongly declared lost: paused 2.5 s, then back, and retired by its loss notice.
    (4, hints("desync_replicate=5", TIMEOUT, "desync_test_stop=3:10:2.5")),
])
def test_a_lost_process_changes_no_byte(mpirun, tmp_path, expected, ranks, options):
    output = tmp_path / "grid"
    done = mpirun(ranks, [JACOBI_DESYNC, N, BLOCK, VERSIONS, output, *options], piox=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == expected
    seen = counts(done.stdout)  # rank 0's view of the losses; sums of the rest
    assert seen["lost"] >= 1
    assert seen["taken_over"] > 0           # the buddy made the lost chunk again
    assert seen["replicated"] > 0
    assert seen["computed"] >= (N // BLOCK) ** 2 * (VERSIONS + 1)


def draw(seed):
    """test_desync_gc's random schedule, and a loss in it."""
    case = draw_schedule(seed)
    rng = random.Random(-seed)
    case.update(replicate=rng.randint(1, 8), stopped=rng.randint(1, case["ranks"] - 1),
                at=rng.randint(0, case["versions"] - 2), pause=rng.choice(["", "", ":2.5"]))
    return case


CASES = [draw(20261203 + i) for i in range(8)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_random_schedules_with_a_loss_keep_the_chain(mpirun, program, tmp_path, case):
    output = tmp_path / "chain"
    stop = f"desync_test_stop={case['stopped']}:{case['at']}{case['pause']}"
    argv = [program("desync_chain"), case["blocks"], case["versions"], case["radius"], case["seed"], output,
            "--window", case["window"], "--chunks", case["chunks"], "--delay-us", case["delay"],
            "--rebalance", case["rebalance"],
            *hints(f"desync_replicate={case['replicate']}", TIMEOUT, stop)]
    done = mpirun(case["ranks"], argv, piox=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == chain_reference(case["blocks"], case["versions"], case["radius"])
    lines = {int(line["rank"]): line for line in
             (counts(text) for text in done.stdout.splitlines() if text.startswith("desync_chain "))}
    assert sorted(lines) == list(range(case["ranks"]))
    live = [line for rank, line in lines.items() if rank != case["stopped"]]
    assert {line["lost"] for line in live} == {live[0]["lost"]} and live[0]["lost"] >= 1
    assert sum(line["taken_over"] for line in live) > 0
    assert sum(line["computed"] for line in lines.values()) >= case["blocks"] * case["versions"]


@pytest.mark.parametrize("words,message", [
    (["desync_replicate=-1"], 'desync_replicate="-1"'),
    (["desync_replicate=5", "desync_loss_timeout=0"], 'desync_loss_timeout="0"'),
    (["desync_replicate=5", "desync_loss_timeout=soon"], 'desync_loss_timeout="soon"'),
    (["desync_replicate=5", "desync_test_stop=0:5"], "rank 0 holds the map"),
    (["desync_replicate=5", "desync_test_stop=4:5"], "RANK from 1 to 3"),
    (["desync_replicate=5", "desync_test_stop=1:5:x"], 'desync_test_stop="1:5:x"'),
    (["desync_replicate=5", f"desync_test_stop=1:{VERSIONS}"], "a process that is done has nothing to lose"),
    (["desync_test_stop=1:5"], "desync_test_stop needs desync_replicate"),
])
def test_bad_recovery_hints_are_refused(mpirun, tmp_path, words, message):
    output = tmp_path / "grid"
    done = mpirun(4, [JACOBI_DESYNC, N, BLOCK, VERSIONS, output, *hints(*words)], piox=False, timeout=60)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert done.stderr.count(message) == 4  # every rank says why it stopped
