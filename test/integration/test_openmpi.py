"""The same unmodified test programs under Open MPI 4.1 (OMPIO) with the libpiox
built for it: piox is not tied to MPICH. Skipped when Open MPI is not installed."""
import json
import re
import subprocess

import pytest

from conftest import REPO, describe
from test_shared_pointer import passed, records_check

RANKS = 4
RECORDS = 2000
SEED = 42


@pytest.mark.parametrize("mode", ["write_shared", "iwrite_shared", "write_ordered",
                                  "write_ordered_split"])
def test_every_record_exactly_once(mode, tmp_path, openmpi_run, openmpi_program, program):
    path = tmp_path / "records"
    result = openmpi_run(RANKS, [openmpi_program("records"), path, mode, RECORDS, SEED],
                         env={"PIOX_STATS": "1"})
    passed(result)
    assert result.stderr.count("shared pointer shm;") == RANKS, result.stderr
    ordered = ["ordered"] if mode.startswith("write_ordered") else []
    records_check(program, path, "records", RANKS, RECORDS, SEED, *ordered)


@pytest.mark.parametrize("mode", ["read_shared", "read_ordered"])
def test_reading_back(mode, tmp_path, openmpi_run, openmpi_program, program):
    path = tmp_path / "records"
    passed(openmpi_run(RANKS, [openmpi_program("records"), path, "write_shared", RECORDS, SEED]))
    passed(openmpi_run(RANKS, [openmpi_program("records"), path, mode, 65536]))
    ordered = ["ordered"] if mode == "read_ordered" else []
    records_check(program, path, "chunks", RANKS, 65536, *ordered)


@pytest.mark.parametrize("program_name", ["views", "errors"])
def test_semantics(program_name, tmp_path, openmpi_run, openmpi_program):
    passed(openmpi_run(RANKS, [openmpi_program(program_name), tmp_path]))


def test_writers_do_not_wait_for_the_host(tmp_path, openmpi_run, openmpi_program, program):
    path = tmp_path / "live"
    result = openmpi_run(RANKS, [openmpi_program("liveness"), path, 1000])
    passed(result)
    assert "writers_waited=0" in result.stdout
    records_check(program, path, "records", RANKS, 1000, 7)


def test_several_nodes(tmp_path, openmpi_run, openmpi_program, program):
    path = tmp_path / "records"
    result = openmpi_run(4, [openmpi_program("records"), path, "write_ordered", 500, SEED],
                         hosts=["nodeA", "nodeB"], env={"PIOX_DEBUG": "1"})
    passed(result)
    assert "transport rma (several nodes)" in result.stderr
    records_check(program, path, "records", 4, 500, SEED, "ordered")


def test_range_lock_across_two_nodes(openmpi_run, openmpi_program):
    """The lock in MPI windows under Open MPI's osc/rdma: its mode word is 32 bits, as
    Open MPI 4.1's btl/vader crashes on a 64-bit MPI_Compare_and_swap."""
    result = openmpi_run(4, [openmpi_program("lock_service"), "range", "random", 100, 1],
                         piox=False, hosts=["nodeA", "nodeB"])
    passed(result)
    assert "replayed 800 grants and releases" in result.stdout, result.stdout


@pytest.mark.parametrize("case", ["atomicity_contig", "atomicity_noncontig", "atomicity_block"])
def test_atomic_mode_holds_where_ompio_takes_no_lock(case, tmp_path, openmpi_run):
    """bench/atomic.c's atomicity cases (a writer and 7 readers of 100,000 ints) on
    /tmp. OMPIO as installed takes no lock for atomic mode on a local file system
    (fs_ufs_lock_algorithm 0, "auto"), and ext4 does not make a 400 KB pread atomic
    against a pwrite: without piox, readers saw half of a write in all three cases,
    every run (2026-12-05). Under piox its own locks hold."""
    binary = tmp_path / "atomic"
    subprocess.run(["mpicc.openmpi", "-O2", "-o", str(binary), str(REPO / "bench" / "atomic.c")],
                   check=True, capture_output=True)
    iterations = 300
    result = openmpi_run(8, [binary, case, tmp_path, "--ints", 100000, "--budget", 60,
                             "--warmup", 0, "--max-iterations", iterations,
                             "--hint", "piox_atomic_lock=range"], timeout=300)
    assert result.returncode == 0, describe(result)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["check"] == "ok" and report["piox"] is True, report
    assert report["iterations"] == iterations and report["reads"] >= iterations, report
