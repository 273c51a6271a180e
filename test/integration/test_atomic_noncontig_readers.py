"""Atomic mode: noncontiguous readers racing a writer never see half of a write,
through piox by preload and through the ad_piox ROMIO driver.

bench/atomic.c's atomicity_noncontig (ROMIO's test/atomicity.c pattern, repeated):
rank 0 rewrites 10,000 ints through a vector(10000, 1, 2) view, every int the
write's number, while 7 ranks read them; each read must hold one number in every
int, never an older one than the reader saw before, and the file the last number
after close. It runs on the lockless FUSE fixture: there a read and a write of the
same span interleave at once when the lock does not keep them apart (on ext4 an
80 KB pread and pwrite hardly ever do).
- preload: the stock build under libpiox (range lock), which moves the data itself;
- ad_piox: the program linked with the standalone libromio, ROMIO_FSTYPE_FORCE=piox:,
  no libpiox.

Both release a sieved read's lock once the read has brought every byte into a
private buffer, and copy the bytes out after (own_transfer.cpp; ROMIO patch 0013).
A mutant that releases the lock before the read fails: ad_piox's 3 runs of 3 at
400 writes, the preload's 2 of 3 at 400 and 5 of 5 at 1,000.
"""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, REPO, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

SOURCE = REPO / "bench" / "atomic.c"
OUT = BUILD / "test" / "peer" / "atomic-noncontig-readers"
RANKS = 8
ITERATIONS = 1000  # the writer's accesses: mutants failed by read 0-379, most runs
# ROMIO's atomicity test's hints: sieve buffers smaller than an access, which
# ad_piox raises to the access's span in atomic mode (one read, one pass).
HINTS = ["--hint", "ind_rd_buffer_size=1209", "--hint", "ind_wr_buffer_size=1107"]


def program_and_run(setup):
    """The program and how to run it: (path, extra arguments, preload?, environment)."""
    if setup == "preload":
        return (romio.build_program(SOURCE, OUT / "stock" / "atomic"),
                ["--hint", "piox_atomic_lock=range"], True, None)
    romio.standalone_lib()
    return (romio.build_program(SOURCE, OUT / "libromio" / "atomic", romio.STANDALONE_LINK_FLAGS),
            [], False, {"ROMIO_FSTYPE_FORCE": "piox:"})


@pytest.mark.parametrize("setup", ["preload", "ad_piox"])
def test_noncontiguous_atomic_reads_never_see_half_a_write(mpirun, lockless_dir, setup):
    program, extra, piox, env = program_and_run(setup)
    result = mpirun(RANKS, [program, "atomicity_noncontig", lockless_dir,
                            "--budget", "60", "--warmup", "0",
                            "--max-iterations", str(ITERATIONS), *HINTS, *extra],
                    piox=piox, env=env, timeout=300)
    assert result.returncode == 0, describe(result)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["check"] == "ok", describe(result)
    assert report["piox"] == piox, report  # libpiox loaded in the preload run only
    assert report["atomic_lock"] == ("range" if piox else None), report
    assert report["iterations"] == ITERATIONS, report
    assert report["reads"] >= ITERATIONS, report  # the readers ran alongside
