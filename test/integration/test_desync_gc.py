"""libdesync's garbage collector under random schedules (issue 18, section 5), on a
small 1-D application (test/programs/desync_chain.c): block (v, x) is a hash of its
address and of blocks (v - 1, x - R .. x + R). Each case draws the ranks, the file,
the radius, the run-ahead window, the chunks' weights and each rank's random compute
delays from a seeded generator. In every case the last version must be the
reference's bytes (so every input was the right one), no block may have been made
twice (a block freed while still needed would be: recomputed = 0, computed = owned x
versions), the collector must have freed blocks, and each rank's peak of resident
blocks must stay within (window + 2) x (owned + 2R): the run-ahead window of its own
chunk and its neighbours' halos, plus the versions being made and being freed. A
third of the cases rechunk every K versions (desync_rebalance, the map weighing
misses): there a rank's chunk changes size from period to period, so the bound
takes the largest chunk a rank can get, the whole file.

Also every routine's bad input (test/programs/desync_errors.c)."""
import random
import re
import struct

import pytest

MASK = (1 << 64) - 1
WORDS = 4


def chain_reference(blocks, versions, radius):
    """The last version, as desync_chain.c computes it (chain_start, chain_mix)."""
    def start(v, x, k):
        return (v * 0x9E3779B97F4A7C15 + x * 0xBF58476D1CE4E5B9 + k) & MASK

    previous = None
    for v in range(versions):
        current = []
        for x in range(blocks):
            words = [start(v, x, k) for k in range(WORDS)]
            if v > 0:
                for y in range(x - radius, x + radius + 1):
                    if 0 <= y < blocks:
                        words = [((w ^ i) * 0x100000001B3) & MASK for w, i in zip(words, previous[y])]
            current.append(words)
        previous = current
    return b"".join(struct.pack(f"={WORDS}Q", *words) for words in previous)


def draw(seed):
    rng = random.Random(seed)
    ranks = rng.choice([2, 3, 4, 5])
    case = {"ranks": ranks, "blocks": rng.randint(ranks, 40), "versions": rng.randint(2, 40),
            "radius": rng.choice([0, 1, 1, 2]), "window": rng.randint(1, 6),
            "delay": rng.choice([0, 50, 300]), "seed": seed}
    weights = [rng.randint(1, 5) for _ in range(ranks)]
    case["chunks"] = "bisect:" + ",".join(map(str, weights)) if rng.random() < 0.7 else "bisect"
    case["rebalance"] = rng.randint(1, 10) if rng.random() < 1 / 3 else 0
    return case


CASES = [draw(20261202 + i) for i in range(15)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_collection_is_never_early_and_stays_bounded(mpirun, program, tmp_path, case):
    output = tmp_path / "chain"
    argv = [program("desync_chain"), case["blocks"], case["versions"], case["radius"], case["seed"], output,
            "--window", case["window"], "--chunks", case["chunks"], "--delay-us", case["delay"],
            "--rebalance", case["rebalance"]]
    done = mpirun(case["ranks"], argv, piox=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == chain_reference(case["blocks"], case["versions"], case["radius"])
    lines = [dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", line))
             for line in done.stdout.splitlines() if line.startswith("desync_chain ")]
    assert sorted(line["rank"] for line in lines) == list(range(case["ranks"]))
    assert sum(line["owned"] for line in lines) == case["blocks"]
    assert sum(line["computed"] for line in lines) == case["blocks"] * case["versions"]
    for line in lines:
        assert line["recomputed"] == 0, line
        if not case["rebalance"]:
            assert line["computed"] == line["owned"] * case["versions"], line
        largest = case["blocks"] if case["rebalance"] else line["owned"]
        bound = (case["window"] + 2) * (largest + 2 * case["radius"])
        assert line["peak_resident"] <= bound, (line, bound)
    if case["versions"] > case["window"] + 2:
        assert sum(line["freed"] for line in lines) > 0


@pytest.mark.parametrize("mode,ranks", [
    ("routines", 1), ("routines", 4), ("conflict", 1), ("conflict", 4), ("iterator", 3),
    ("nowrite", 1), ("nowrite", 4), ("mismatch", 4),
])
def test_bad_input_gets_its_error(mpirun, program, mode, ranks):
    done = mpirun(ranks, [program("desync_errors"), mode], piox=False, timeout=120)
    assert done.returncode == 0 and " No Errors" in done.stdout, done.stdout + done.stderr
