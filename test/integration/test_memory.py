"""Memory: the test programs run clean under valgrind with libpiox preloaded (no
invalid access, no use of uninitialised memory, no definite leak). Leaks inside the
MPI library's own start-up are suppressed (test/valgrind/mpi.supp)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import differential_cases
import differential_run
from conftest import BUILD
from test_differential import CORPUS_CASES, ROMIO_FIXES
from test_shared_pointer import passed, records_check

SUPPRESSIONS = Path(__file__).resolve().parents[1] / "valgrind" / "mpi.supp"
VALGRIND = ["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite",
            "--error-exitcode=9", f"--suppressions={SUPPRESSIONS}"]

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is missing")


@pytest.mark.parametrize("name", ["errors", "views", "atomic_errors"])
def test_programs_are_clean(name, tmp_path, mpirun, program):
    passed(mpirun(2, VALGRIND + [program(name), tmp_path], timeout=600))


def test_atomic_mode_on_a_lockless_file_system_is_clean(lockless_dir, mpirun, program):
    """Atomic mode, piox's sieving and the lockless write path."""
    passed(mpirun(2, VALGRIND + [program("atomic_errors"), lockless_dir], timeout=600))
    result = mpirun(2, VALGRIND + [program("atomic_overlap"), lockless_dir, "--rounds", "3"],
                    timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("atomic", [False, True], ids=["nonatomic", "atomic"])
def test_patched_romio_is_clean(atomic, tmp_path, mpirun, program):
    """The standalone ROMIO with piox's patches (scripts/build-romio), preloaded, every
    file on the ad_piox driver: the corpus's cases of the patches that rewrote ROMIO's
    flattening and its reads at the end of file (test_differential's ROMIO_FIXES),
    each answered as the standard says."""
    cases = [case for case, _ in CORPUS_CASES
             if case["id"].startswith(tuple(prefix for prefix, _ in ROMIO_FIXES))]
    listing = tmp_path / "cases"
    listing.write_text("".join(differential_cases.case_line(case) + "\n" for case in cases))
    work = tmp_path / "files"
    work.mkdir()
    env = dict(differential_run.ROMIO_AD_PIOX, DIFFERENTIAL_CASE_MS=60000)
    assert os.path.exists(env["LD_PRELOAD"]), f"{env['LD_PRELOAD']} is missing: run scripts/build-romio"
    result = mpirun(2, VALGRIND + [program("differential"), listing, work] + (["--atomic"] if atomic else []),
                    piox=False, env=env, timeout=900)
    verdicts = [line.split()[0] for line in result.stdout.splitlines() if " verdict=ok" in line]
    assert result.returncode == 0 and len(verdicts) == len(cases), result.stdout + result.stderr


def test_lock_service_is_clean(mpirun, program):
    passed(mpirun(2, VALGRIND + [program("lock_service"), "range", "random", 50, 1],
                  piox=False, timeout=600))


def test_optimistic_reads_are_clean(mpirun, program, tmp_path):
    passed(mpirun(3, VALGRIND + [program("optimistic_reads"), "check", 30, tmp_path],
                  piox=False, timeout=600))


# The DesyncFS run also loses rank 2 after version 2 (replicas every 2 versions) and
# writes a checkpoint, from which a second run resumes.
LOSS = ["--hint", "desync_replicate=2", "--hint", "desync_loss_timeout=3", "--hint", "desync_test_stop=2:2"]


@pytest.mark.parametrize("name,options", [("jacobi_mpi", []), ("jacobi_desync", ["--rebalance", "2", *LOSS])])
def test_desync_jacobi_is_clean(tmp_path, mpirun, name, options):
    """Issue 18's Jacobi at 4 ranks without piox: the MPI twin, and libdesync's event
    loop, prefetch, collection, periods of leases, replicas, a lost process's chunks
    taken over, checkpoint writes and a resume from them, and the end (every message
    received, every block freed)."""
    jacobi = BUILD / "desync" / "examples" / name
    checkpoint = ["--hint", f"desync_checkpoint={tmp_path / 'checkpoint'}", "--hint", "desync_checkpoint_block=128"]

    def run(output, *words):
        return mpirun(4, VALGRIND + [jacobi, 24, 4, 5, tmp_path / output, *words], piox=False, timeout=600)

    result = run("grid", *options, *(checkpoint if name == "jacobi_desync" else []))
    assert result.returncode == 0 and f"{name} ranks=4" in result.stdout, result.stderr
    if name == "jacobi_desync":
        assert " lost=0 " not in result.stdout and " lost=" in result.stdout  # the loss happened
        again = run("again", "--hint", "desync_replicate=2", *checkpoint)
        assert again.returncode == 0 and " resumed_from=-1" not in again.stdout, again.stdout + again.stderr


@pytest.mark.parametrize("mode", ["routines", "conflict"])
def test_desync_bad_input_is_clean(mpirun, program, mode):
    """libdesync's error paths: refused jobs, bad handles and buffers, a job ended by
    one rank's failure (its messages drained, its blocks and handles freed)."""
    passed(mpirun(2, VALGRIND + [program("desync_errors"), mode], piox=False, timeout=600))


@pytest.mark.parametrize("mode", ["write_shared", "iwrite_shared", "write_ordered_split"])
def test_records_are_clean(mode, tmp_path, mpirun, program):
    path = tmp_path / "records"
    passed(mpirun(2, VALGRIND + [program("records"), path, mode, 200, 3], timeout=600))
    ordered = ["ordered"] if mode.startswith("write_ordered") else []
    records_check(program, path, "records", 2, 200, 3, *ordered)


@pytest.mark.parametrize("name", ["test_sfp", "test_view", "test_dli_core"])
def test_unit_tests_are_clean(name):
    unit = BUILD / "test" / "unit" / name
    result = subprocess.run(VALGRIND + [str(unit)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("args", [[], ["--stop-after", "100", "--expect", "1"]],
                         ids=["whole", "stopped"])
def test_tree_walk_is_clean(args, tmp_path, mpirun, program):
    """libpftw with threads, name batches sent between ranks, and a stop."""
    tree = tmp_path / "tree"
    for d in range(40):
        (tree / f"d{d}" / "sub").mkdir(parents=True)
        for f in range(15):
            (tree / f"d{d}" / f"f{f}").write_bytes(b"x" * f)
    result = mpirun(2, VALGRIND + [program("walk_list"), tree, tmp_path / "out", "pftw_threads=2",
                                   "pftw_stat=yes", "pftw_algorithm=drqs", *args], piox=False, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_locality_queries_are_clean(tmp_path, mpirun, program):
    """libdli: DLI_Init, DLI_Load (every rank's holding gathered), the six functions and
    their one-block buffers, a failing call, DLI_Finalize; then the tool's scheduler."""
    data = tmp_path / "data"
    data.write_bytes(os.urandom(300000))
    query = [program("dli_query"), "--init", "--load", "--hint", "dli_chunk_size=65536", data, "nodeA", "nodeB"]
    result = mpirun(2, VALGRIND + query, piox=False, hosts=["nodeA", "nodeB"], timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    missing = [program("dli_query"), "--init", "--load", tmp_path / "missing"]
    result = mpirun(2, VALGRIND + missing, piox=False, timeout=600)
    assert result.returncode == 3 and '"error":3' in result.stdout, result.stdout + result.stderr
    tool = BUILD / "locality" / "piox-locality"
    result = subprocess.run(VALGRIND + [str(tool), "--ranks", "3", data], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("locality", ["aggregate", "remap"])
def test_locality_reads_are_clean(locality, tmp_path, mpirun, program):
    """piox's locality reads: the remap (its staged path too, for vector's memory
    type), and the aggregate exchange, with several nonblocking reads in flight. One
    run under valgrind reads each way in an open of its own."""
    import locality_shares as shares
    mapped = shares.mapped_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    hows = ["at_all", "iat_all_many", "vector"]
    result = mpirun(3, VALGRIND + [program("share_reader"), mapped["path"], out,
                                   *[word for how in hows for word in ("--how", how)],
                                   "--pieces", "3", f"piox_locality={locality}",
                                   f"dli_map_file={mapped['map']}"],
                    hosts=list(shares.HOSTS), env={"PIOX_STATS": "1"}, timeout=600)
    passed(result)
    # Each rank's stats at each close: every read went through the locality path.
    modes = [match[2].split(",")[0] for match in shares.STATS_LINE.finditer(result.stderr)]
    assert modes == [locality] * (3 * len(hows)), result.stderr


def test_load_servers_are_clean(loader_tree, tmp_path):
    """piox-loadd on two simulated nodes, serving the chain's libraries (each server
    under valgrind, its report in a file of its own: piox load does not pass the
    servers' status on)."""
    from test_loader_load import SERVER, on_nodes, piox_load
    logs = tmp_path / "logs"
    logs.mkdir()
    wrapper = tmp_path / "valgrind-piox-loadd"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(VALGRIND) +
                       f" --log-file={logs}/server.%p {SERVER} \"$@\"\n")
    wrapper.chmod(0o755)
    case = loader_tree["cases"]["chain"]
    nodes = ["nodeA", "nodeB"]
    done = piox_load(on_nodes(case.command(loader_tree["root"]), nodes, 1), nodes=nodes,
                     env={"PIOX_LOAD_SERVER": str(wrapper), "PIOX_LOAD_TIMEOUT": "30"},
                     timeout=600)
    assert done.returncode == 0 and done.stdout == case.expected * 2, done.stderr
    # One report per process valgrind ran: the servers, and the children they fork to
    # ask ld.so and ldconfig (empty). UCX's huge-page request is only a warning.
    reports = sorted(logs.iterdir())
    assert len(reports) >= 2, reports
    for report in reports:
        errors = [line for line in report.read_text().splitlines()
                  if "WARNING: valgrind ignores shmget" not in line]
        assert errors == [], "\n".join(errors)
