"""The differential harness (test_differential.py) under Open MPI: the same seeded
cases through OMPIO, stock and under the libpiox built for Open MPI, in the
configurations where piox moves the data itself (PIOX_LOCKLESS=yes, the lockless
fixture, atomic mode).
Each piox configuration is judged against stock Open MPI of the same atomicity: no
seeded case may be worse. 1,000 cases (PIOX_DIFFERENTIAL_OPEN_MPI_CASES) take about
20 s here: stock's known hangs (reads that reach the end of file, below) are not
run, and they were most of this file's time when each cost a launch (134 s for 200
cases)."""
import os
import tempfile
from pathlib import Path

import pytest

import differential_cases
import differential_run as run

SEED = 20240614
CASES = int(os.environ.get("PIOX_DIFFERENTIAL_OPEN_MPI_CASES", "1000"))


@pytest.fixture(scope="module")
def differential(openmpi_run, openmpi_program, lockless_mount, tmp_path_factory):
    cases = differential_cases.generate(SEED, CASES)
    directories = {"tmp": tmp_path_factory.mktemp("differential-open-mpi"),
                   "fuse": Path(tempfile.mkdtemp(prefix="differential-open-mpi-",
                                                 dir=lockless_mount))}
    program = openmpi_program("differential")
    results = run.run_all(openmpi_run, program, cases, directories,
                          configs=run.OPEN_MPI_CONFIGS)
    run.recheck_worse(openmpi_run, program, cases, directories, results)
    return {"cases": {c["id"]: c for c in cases}, "results": results,
            "judged": run.judge(results)}


@pytest.mark.parametrize("config", [c.name for c in run.OPEN_MPI_PIOX_CONFIGS])
def test_seeded_cases_are_no_worse_than_stock_open_mpi(differential, config):
    judged = differential["judged"][config]
    worse = [i for i, (v, _) in judged.items() if v == "worse"]
    lines = []
    for case_id in worse:
        stock = differential["results"][run.CONFIGS[config].anchor].get(case_id)
        lines += [f"# {config}: {judged[case_id][1]}",
                  f"#   piox:  {differential['results'][config][case_id].line}",
                  f"#   stock: {stock.line if stock else '-'}",
                  differential_cases.case_line(differential["cases"][case_id])]
    assert not worse, (f"{len(worse)} of {len(judged)} seeded cases are worse under {config} "
                       f"than stock Open MPI:\n" + "\n".join(lines))


def test_stock_open_mpi_runs_the_cases(differential):
    """The anchor ran. The only harness errors allowed are types whose extent Open MPI
    pads to their alignment (an hvector of ints with an odd byte stride: the standard
    lets an implementation do that, MPICH does not), which the cases then skip."""
    stock = differential["results"]["openmpi-stock"]
    harness = [r.line for r in stock.values() if r.status == "harness"]
    other = [line for line in harness if "MPI says" not in line]
    assert not other, "\n".join(other)
    assert len(harness) <= 0.05 * len(stock), "\n".join(harness)
    ran = sum(r.ran for r in stock.values())
    assert ran >= 0.8 * len(stock), f"only {ran} of {len(stock)} cases ran under stock Open MPI"


def test_open_mpi_still_hangs_in_a_read_that_reaches_the_end_of_file(openmpi_run, openmpi_program,
                                                                     tmp_path):
    """The hang the stock configurations skip without running (differential.c,
    known_short_read_hang): an MPI_File_iread_at of 2 bytes from a 1-byte file, run
    for real, still hangs under stock Open MPI. When it stops hanging, Open MPI has
    mended OMPIO and the skip should go. With the skip, the program says so without
    running it; a read that stops short of the end runs."""
    short = differential_cases.parse_case(
        "id=short op=iread_at etype=char ftype=char mtype=char disp=0 off=1 count=2 prior=1")
    whole = differential_cases.parse_case(
        "id=whole op=iread_at etype=char ftype=char mtype=char disp=0 off=1 count=2 prior=3")
    program = openmpi_program("differential")
    unskipped = run.Config("openmpi-stock-unskipped", piox=False, open_mpi=True)
    real = run.run_config(openmpi_run, program, unskipped, [short], tmp_path)
    assert real["short"].status == "hang", real["short"].line
    skipped = run.run_config(openmpi_run, program, run.CONFIGS["openmpi-stock"], [short, whole], tmp_path)
    assert skipped["short"].status == "hang" and "known=" in skipped["short"].line, skipped["short"].line
    assert skipped["whole"].ran and skipped["whole"].fields["verdict"] == "ok", skipped["whole"].line
