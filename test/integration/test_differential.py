"""Differential testing of piox's data path (issue 14, section 3): views and
datatypes through piox against stock ROMIO and against the MPI standard's answer.

Cases (differential_cases.py) run in every configuration of differential_run.py,
all launches of the module at once (a module fixture), and each piox configuration
gets a verdict per case: ok, inherited (ROMIO's own deviation), worse, skip. Two
sets: a seeded set (seed 20240614, PIOX_DIFFERENTIAL_CASES cases) and every case of
differential_corpus.txt. A corpus case after a `# known: <why>` line is a known
deviation of piox: an xfail that is not strict (it may stop deviating); after a
`# known(NAME ...): <why>` line, a known deviation of the configurations named, not
judged in those. Any other `worse` verdict fails, with the case lines to paste into
the corpus. A worse case is run again (with its anchor) before it counts: it must be
worse every time.

The same cases also run through the standalone ROMIOs of issue 15, preloaded, each
judged against stock (differential_run.py).
"""
import os
import tempfile
from pathlib import Path

import pytest

import differential_cases
import differential_run as run

SEED = 20240614
# 2,500 seeded cases by default (4,000 until the suite ran past 45 minutes on CI);
# set PIOX_DIFFERENTIAL_CASES for more.
CASES = int(os.environ.get("PIOX_DIFFERENTIAL_CASES", "2500"))
CORPUS = Path(__file__).with_name("differential_corpus.txt")


def load_corpus(path=CORPUS):
    """[(case, known)] in file order; known is None, or (why, configurations): a
    "# known: why" line knows the next case in every configuration (configurations
    None), "# known(NAME ...): why" in the configurations named only."""
    cases, known = [], None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("# known"):
            head, _, why = line[len("# known"):].partition(":")
            configs = head.strip().strip("()").split() if head.strip() else None
            known = (why.strip(), configs)
        elif line and not line.startswith("#"):
            cases.append((differential_cases.parse_case(line), known))
            known = None
    return cases


CORPUS_CASES = load_corpus()
KNOWN = {case["id"]: known for case, known in CORPUS_CASES if known}
KNOWN_LINES = {differential_cases.case_line({**case, "id": ""}): known
               for case, known in CORPUS_CASES if known}


def is_known(case, config):
    """The case (a corpus case, or a seeded case with the same text) is a known
    deviation in this configuration."""
    known = KNOWN.get(case["id"]) or KNOWN_LINES.get(differential_cases.case_line({**case, "id": ""}))
    return known is not None and (known[1] is None or config in known[1])


@pytest.fixture(scope="module")
def differential(mpirun, program, lockless_mount, tmp_path_factory):
    seeded = differential_cases.generate(SEED, CASES)
    cases = [case for case, _ in CORPUS_CASES] + seeded
    directories = {"tmp": tmp_path_factory.mktemp("differential"),
                   "fuse": Path(tempfile.mkdtemp(prefix="differential-", dir=lockless_mount))}
    results = run.run_all(mpirun, program("differential"), cases, directories)
    run.recheck_worse(mpirun, program("differential"), cases, directories, results)
    return {"cases": {c["id"]: c for c in cases}, "seeded": seeded, "results": results,
            "judged": run.judge(results)}


def _report(differential, config, ids):
    lines = []
    for case_id in ids:
        case = differential["cases"][case_id]
        reason = differential["judged"][config][case_id][1]
        got = differential["results"][config][case_id].line
        anchor = differential["results"][run.CONFIGS[config].anchor].get(case_id)
        lines += [f"# {config}: {reason}", f"#   got:    {got}",
                  f"#   anchor: {anchor.line if anchor else '-'}",
                  differential_cases.case_line(case)]
    return "\n".join(lines)


@pytest.mark.parametrize("config", [c.name for c in run.PIOX_CONFIGS])
def test_seeded_cases_are_no_worse_than_their_anchor(differential, config):
    judged = differential["judged"][config]
    worse = [c["id"] for c in differential["seeded"]
             if judged[c["id"]][0] == "worse" and not is_known(c, config)]
    assert not worse, (f"{len(worse)} of {len(differential['seeded'])} seeded cases are worse "
                       f"under {config} than {run.CONFIGS[config].anchor}:\n" +
                       _report(differential, config, worse))


def _corpus_param(case, known):
    """A case known in every configuration is an xfail that is not strict (it may stop
    deviating); one known in some configurations is not judged in those."""
    everywhere = known is not None and known[1] is None
    marks = [pytest.mark.xfail(reason=known[0], strict=False)] if everywhere else []
    return pytest.param(case["id"], marks=marks, id=case["id"])


@pytest.mark.parametrize("case_id", [_corpus_param(c, k) for c, k in CORPUS_CASES])
def test_corpus_case(differential, case_id):
    _, known_in = KNOWN.get(case_id) or ("", None)
    worse = [name for name, judged in differential["judged"].items()
             if run.CONFIGS[name].judged and judged[case_id][0] == "worse"
             and name not in (known_in or ())]
    assert not worse, "\n".join(_report(differential, name, [case_id]) for name in worse)


def test_the_harness_runs_its_cases(differential):
    """Every case ran in stock: no harness error (a typemap MPI disagrees with, an
    unknown routine) and few cases the standard leaves undefined."""
    stock = differential["results"]["stock"]
    harness = [r.line for r in stock.values() if r.status == "harness"]
    assert not harness, "\n".join(harness)
    invalid = sum(r.status == "invalid" for r in stock.values())
    assert invalid <= 0.1 * len(stock), f"{invalid} of {len(stock)} cases are invalid"


def test_stock_romio_writes_the_issue_case_right(differential):
    """The anchor: the issue's case (resized(4,12,int), two ints at the individual
    pointer) puts the ints at bytes 0 and 12 in stock ROMIO, as the oracle says. Not
    its position: ROMIO reports 1 where the standard says 2 (the issue's own example
    of ROMIO being wrong), and -1 on the rank that wrote nothing."""
    for name in ("stock", "stock-atomic"):
        result = differential["results"][name]["issue14-resized-atomic"]
        assert result.ran and not result.bad & {"filediff", "err", "count"}, result.line


def test_verdicts():
    """How a piox result is judged against stock's (no MPI needed)."""
    def result(bad=(), **fields):
        bits = 0
        for name in bad:
            bits |= run.RANK_BITS[name]
        return run.Result("ran", {"err": "0,0", "file": "8:aa", "buf": "b,b", "count": "2,0",
                                  "bytes": "8,0", "pos": "2,0", "bad": f"{bits},0", **fields},
                          frozenset(bad))
    ok, moved = result(), result(["pos"], pos="3,0")
    assert run.verdict(ok, moved)[0] == "ok"
    assert run.verdict(moved, result(["pos"], pos="3,0"))[0] == "inherited"
    assert run.verdict(moved, result(["pos"], pos="4,0"))[0] == "worse"
    assert run.verdict(moved, ok)[0] == "worse"
    both = result(["pos", "count", "bytes"], pos="3,0", count="1,0")
    assert run.verdict(moved, both)[0] == "inherited"  # piox deviates less
    assert run.verdict(both, moved)[0] == "worse"
    stray = result(["bufdiff"], bufdiff="0000000000000000+1,0000000000000000+0")
    wrong = result(["bufdiff"], bufdiff="00000000000000aa+1,0000000000000000+0", buf="c,b")
    assert run.verdict(stray, wrong)[0] == "inherited"
    assert run.verdict(wrong, stray)[0] == "worse"
    assert run.verdict(run.Result("hang"), ok)[0] == "worse"
    assert run.verdict(run.Result("hang"), run.Result("hang"))[0] == "skip"
    assert run.verdict(moved, run.Result("died"))[0] == "skip"
    assert run.verdict(run.Result("unrun"), run.Result("hang"))[0] == "skip"
    assert run.verdict(run.Result("invalid"), ok)[0] == "skip"
    # Stock answers some racy cases differently from run to run: any of its runs counts.
    varying = result(["pos"], pos="4,0")
    varying.earlier = [result(["pos"], pos="5,0"), result(["pos"], pos="3,0")]
    assert run.verdict(moved, varying)[0] == "inherited"
    varying.earlier = [result(["pos"], pos="5,0")]
    assert run.verdict(moved, varying)[0] == "worse"
    # Two writers, and stock writes the file wrong: its wrong file is a race's outcome.
    def wrong_file(digest, bad=()):
        wrong = result(bad, filediff=digest, file=f"8:{digest}")
        wrong.bad |= {"filediff"}
        return wrong
    mine, theirs = wrong_file("cc"), wrong_file("bb")
    assert run.verdict(mine, theirs)[0] == "worse"
    mine.writers = 2
    assert run.verdict(mine, theirs)[0] == "inherited"
    assert run.verdict(mine, ok)[0] == "worse"  # stock right: piox's wrong file counts
    both = wrong_file("cc", ["pos"])
    both.fields["pos"] = "3,0"
    both.writers = 2
    assert run.verdict(both, theirs)[0] == "worse"  # its other deviations still count


# The corpus's cases that a ROMIO patch makes right: the id prefix, the patch.
ROMIO_FIXES = [("flatten-", "0016: datatypes flattened as their typemaps say"),
               ("eof-", "0017: strided reads stop at the end of file"),
               ("coll-eof-", "0018: two-phase collective reads stop at the end of file"),
               ("eof-block-", "0021: a read inside one block of a view leaves a partial etype alone")]


@pytest.mark.parametrize("prefix,patch", ROMIO_FIXES, ids=[p.strip("-") for p, _ in ROMIO_FIXES])
def test_patched_romio_fixes_stock(differential, prefix, patch):
    """The corpus's cases of one ROMIO patch (flatten-N: views and memory types that
    ROMIO 4.0.2 flattens wrong; eof-N: reads that reach the end of file; coll-eof-N:
    two-phase collective reads past the end of file; eof-block-N: reads inside one
    block of a view that end inside an etype) are right
    through the patched standalone ROMIO, with and without atomic mode, and wrong in
    stock MPICH (the anchor: each still bites)."""
    ids = [case["id"] for case, _ in CORPUS_CASES
           if case["id"].startswith(prefix) and case["id"][len(prefix):].isdigit()]
    assert len(ids) >= 10, (patch, ids)
    for name in ("romio-ad_piox", "romio-ad_piox-atomic"):
        wrong = [i for i in ids if differential["judged"][name][i][0] != "ok"]
        assert not wrong, _report(differential, name, wrong)
    # wrong: a deviation, or a death (stock writes outside a buffer on some of them)
    right_in_stock = [differential["results"]["stock"][i].line for i in ids
                      if differential["results"]["stock"][i].ran
                      and not differential["results"]["stock"][i].bad]
    assert not right_in_stock, "\n".join(right_in_stock)
