"""The shared file pointer inside the patched libromio (issue 15, patch 0007).

Patch 0007 gives drivers three optional slots (GetSharedFP, SetSharedFP,
GetOrderedFP); ad_piox fills them with piox's pointer, so ROMIO makes no hidden
.shfp file and passes no ordered-mode token. Drivers that leave the slots NULL
keep the hidden file and the token chain, which the patch moved into one helper.

test/programs/shared_pointer_script.c runs a fixed script of ordered, shared,
seek, set_view and MPI_MODE_APPEND steps and prints every rank's offsets. Its
transcript and the file it leaves must be the same byte for byte under:
- stock MPICH (the ROMIO inside libmpich), the reference, on a normal directory;
- the patched libromio through ad_piox (piox:), on a normal directory and on the
  lockless fixture;
- the patched libromio through ufs (ufs:), the NULL-slot path, normal directory.
inotify (romio.CreatedNames) watches for .shfp files: none with piox:, one with
ufs: (the anchor that shows the watcher sees them). The hint romio_fstype_force
(patch 0009) selects ad_piox as the variable does.

The same libromio also works preloaded into a program built against stock MPICH:
test/programs/romio_linked.c finds MPI_File_open in libromio.so.
"""
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, REPO, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

PROGRAMS = REPO / "test" / "programs"
OUT = BUILD / "test" / "peer" / "romio-driver-pointer"
SCRIPT_RANKS = 4
DATA_FILE = "shared_pointer_script.dat"


def build(name, variant, link_flags=()):
    """test/programs/<name>.c built with mpicc into OUT/<variant>/."""
    return romio.build_program(PROGRAMS / f"{name}.c", OUT / variant / name, link_flags)


@pytest.fixture(scope="session")
def script():
    romio.standalone_lib()
    return {"stock": build("shared_pointer_script", "stock"),
            "patched": build("shared_pointer_script", "patched", romio.STANDALONE_LINK_FLAGS)}


def run_script(mpirun, program, directory, env=None, hint=None):
    """The transcript, the file's bytes and the names created in directory."""
    with romio.CreatedNames(directory) as created:
        result = mpirun(SCRIPT_RANKS, [program, directory] + ([hint] if hint else []),
                        piox=False, env=env)
    assert result.returncode == 0 and "No Errors" in result.stdout, describe(result)
    transcript = result.stdout.replace(" No Errors\n", "")
    return transcript, (directory / DATA_FILE).read_bytes(), created.names


@pytest.fixture(scope="module")
def stock_outcome(mpirun, script, tmp_path_factory):
    directory = tmp_path_factory.mktemp("stock")
    transcript, data, created = run_script(mpirun, script["stock"], directory)
    assert romio.shfp_names(created), f"stock ROMIO made no .shfp file: {sorted(created)}"
    return transcript, data


@pytest.fixture(params=["normal", "lockless"])
def piox_dir(request, tmp_path):
    if request.param == "lockless":
        return request.getfixturevalue("lockless_dir")
    return tmp_path


def test_stock_transcript_has_every_step(stock_outcome):
    """The reference itself: a line per step, offsets that moved."""
    transcript, data = stock_outcome
    lines = transcript.splitlines()
    assert len(lines) == 16, transcript
    assert lines[0].split()[-SCRIPT_RANKS:] == ["0"] * SCRIPT_RANKS, transcript
    # after the first write_ordered every rank sees 1+2+3+4 ints written
    assert lines[1].split()[-SCRIPT_RANKS:] == ["10"] * SCRIPT_RANKS, transcript
    assert len(data) > 100


def test_ad_piox_pointer_matches_stock_without_hidden_file(mpirun, script, stock_outcome,
                                                           piox_dir):
    transcript, data, created = run_script(mpirun, script["patched"], piox_dir,
                                           env={"ROMIO_FSTYPE_FORCE": "piox:"})
    assert transcript == stock_outcome[0]
    assert data == stock_outcome[1]
    assert romio.shfp_names(created) == [], sorted(created)


def test_hint_selects_ad_piox(mpirun, script, stock_outcome, tmp_path):
    """Patch 0009: the hint romio_fstype_force=piox: instead of the variable."""
    transcript, data, created = run_script(mpirun, script["patched"], tmp_path,
                                           hint="romio_fstype_force=piox:")
    assert transcript == stock_outcome[0]
    assert data == stock_outcome[1]
    assert romio.shfp_names(created) == [], sorted(created)


def test_unknown_forced_type_fails_the_open(mpirun, script, tmp_path):
    result = mpirun(SCRIPT_RANKS, [script["patched"], tmp_path, "romio_fstype_force=nosuchfs:"],
                    piox=False)
    assert result.returncode != 0 and "No Errors" not in result.stdout, describe(result)
    # Each rank's first failure is the script's first open. By source line: the ranks'
    # lines interleave in stderr ("FAIL rank 2 ...:90: FAIL rank 3 ...:90: MPI_File_open").
    first_line = {}
    for rank, line in re.findall(r"FAIL rank (\d+) \S+?:(\d+):", result.stderr):
        first_line.setdefault(int(rank), int(line))
    source = (PROGRAMS / "shared_pointer_script.c").read_text().splitlines()
    open_line = next(n for n, text in enumerate(source, 1) if "MPI_File_open(" in text)
    assert first_line == {rank: open_line for rank in range(SCRIPT_RANKS)}, describe(result)


def test_null_slots_keep_hidden_file_and_token(mpirun, script, stock_outcome, tmp_path):
    """ufs: leaves the slots NULL: the hidden file is back, the offsets are the same."""
    transcript, data, created = run_script(mpirun, script["patched"], tmp_path,
                                           env={"ROMIO_FSTYPE_FORCE": "ufs:"})
    assert transcript == stock_outcome[0]
    assert data == stock_outcome[1]
    assert romio.shfp_names(created), f"no .shfp file with ufs: {sorted(created)}"


@pytest.mark.parametrize("nprocs", [1, 3])
def test_preloaded_libromio_serves_a_stock_program(mpirun, nprocs, tmp_path):
    """LD_PRELOAD=libromio.so: the MPI_File_* routines of a program built against
    stock MPICH resolve in the patched libromio, and piox: works there."""
    libromio = romio.standalone_lib()
    program = build("romio_linked", "stock")
    with romio.CreatedNames(tmp_path) as created:
        result = mpirun(nprocs, [program, tmp_path, "libromio.so"], piox=False,
                        env={"LD_PRELOAD": str(libromio), "ROMIO_FSTYPE_FORCE": "piox:"})
    assert result.returncode == 0 and "No Errors" in result.stdout, describe(result)
    assert result.stdout.count("MPI_File_open is in") == nprocs, describe(result)
    assert romio.shfp_names(created.names) == [], sorted(created.names)
