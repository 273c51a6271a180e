"""Atomic mode through the ad_piox ROMIO driver: noncontiguous readers racing a
writer never see half of a write.

bench/atomic.c's atomicity_noncontig (ROMIO's test/atomicity.c pattern, repeated):
rank 0 rewrites 10,000 ints through a vector(10000, 1, 2) view, every int the
write's number, while 7 ranks read them; each read must hold one number in every
int, never an older one than the reader saw before, and the file the last number
after close. The program is linked with the standalone libromio and run with
ROMIO_FSTYPE_FORCE=piox:, no libpiox, on the lockless FUSE fixture: there a read
and a write of the same span interleave at once when the lock does not keep them
apart (on ext4 a 80 KB pread and pwrite hardly ever do).

It holds patch 0013: an atomic sieved read releases its lock once the read has
brought every byte into its buffer, and copies them out after. The mutant that
releases the lock before the read fails within a few hundred reads.
"""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
import romio  # noqa: E402
from conftest import BUILD, REPO, describe  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_force_from_outside")

OUT = BUILD / "test" / "peer" / "romio-driver-atomic"
RANKS = 8
ITERATIONS = 400  # the writer's accesses; the mutant above failed by read 290
# ROMIO's atomicity test's hints: sieve buffers smaller than an access, which
# ad_piox raises to the access's span in atomic mode (one read, one pass).
HINTS = ["--hint", "ind_rd_buffer_size=1209", "--hint", "ind_wr_buffer_size=1107"]


def test_noncontiguous_atomic_reads_never_see_half_a_write(mpirun, lockless_dir):
    romio.standalone_lib()
    program = romio.build_program(REPO / "bench" / "atomic.c", OUT / "atomic",
                                  romio.STANDALONE_LINK_FLAGS)
    result = mpirun(RANKS, [program, "atomicity_noncontig", lockless_dir,
                            "--budget", "60", "--warmup", "0",
                            "--max-iterations", str(ITERATIONS), *HINTS],
                    piox=False, env={"ROMIO_FSTYPE_FORCE": "piox:"}, timeout=300)
    assert result.returncode == 0, describe(result)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["check"] == "ok", describe(result)
    assert report["iterations"] == ITERATIONS, report
    assert report["reads"] >= ITERATIONS, report  # the readers ran alongside
