"""Atomic mode: readers racing a writer never see half of a write, through piox by
preload and through the ad_piox ROMIO driver.

bench/atomic.c's atomicity_noncontig and atomicity_contig (ROMIO's test/atomicity.c
patterns, repeated, with 100,000 ints instead of 10,000), and atomicity_block: rank 0
rewrites the ints, through a vector(N, 1, 2) view, contiguous, or inside the first
block of a vector(2, N, 2N) view, every int the write's number, while 7 ranks read
them; each read must hold one number in every int, never an older one
than the reader saw before, and the file the last number after close. It runs on
the lockless FUSE fixture: there a read and a write of the same span interleave
at once when the lock does not keep them apart (on ext4 an 80 KB pread and pwrite
hardly ever do).
- preload: the stock build under libpiox (range lock), which moves the data itself
  (the noncontiguous access, 100,000 pieces, in chunks: own_transfer.h);
- ad_piox: the program linked with the standalone libromio, ROMIO_FSTYPE_FORCE=piox:,
  no libpiox.

Both read optimistically on one node: without a lock, kept only when no write
overlapped the read (piox_lock.h; ROMIO patch 0019). A libromio whose
ADIOI_Read_optimistically keeps every read failed 6 runs of 6 (by read 30-276),
and passed 1,000 writes of 10,000 ints every time, hence the larger accesses. The
preload reads its chunked access optimistically too (the whole span at once); one
that kept every such read failed the noncontiguous case 3 runs of 3.
Both release a sieved read's lock once the read has brought every byte into a
private buffer, and copy the bytes out after (own_transfer.cpp; ROMIO patch 0013).
atomicity_block is the access ROMIO's ADIOI_GEN_ReadStrided reads with one read of
its own, which stock ROMIO did not lock (patch 0020): ad_piox without the patch
failed it (6 readers saw a mix in one run), as stock MPICH does on ext4.
atomicity_collective reads with MPI_File_read_at_all, each reader its own slice:
stock ROMIO reads those without a lock, and the writer, done with its empty part,
writes the next version meanwhile. ad_piox without patch 0022 (collective accesses
in atomic mode independent and locked) failed it 4 runs of 4.
A mutant that releases the lock before the read failed: ad_piox's 3 runs of 3 at
400 writes, the preload's 2 of 3 at 400 and 5 of 5 at 1,000 (10,000 ints).
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
ITERATIONS = 1000  # the writer's accesses
# Each collective read waits for every rank (ROMIO's allgather), about 34 ms a round
# through ad_piox with 8 processes on 2 cores: fewer rounds, inside the budget. ad_piox's
# readers saw a mix by the 200th read, 4 runs of 4.
COLLECTIVE_ITERATIONS = 300
# 400 KB accesses (the noncontiguous one spans 800 KB, inside one sieve buffer): the
# FUSE daemon moves them in several requests, so a read often overlaps a write.
INTS = 100000
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


@pytest.mark.parametrize("case", ["atomicity_noncontig", "atomicity_contig", "atomicity_block",
                                  "atomicity_collective"])
@pytest.mark.parametrize("setup", ["preload", "ad_piox"])
def test_atomic_reads_never_see_half_a_write(mpirun, lockless_dir, setup, case):
    program, extra, piox, env = program_and_run(setup)
    iterations = COLLECTIVE_ITERATIONS if case == "atomicity_collective" else ITERATIONS
    result = mpirun(RANKS, [program, case, lockless_dir, "--ints", str(INTS),
                            "--budget", "60", "--warmup", "0",
                            "--max-iterations", str(iterations), *HINTS, *extra],
                    piox=piox, env=env, timeout=300)
    assert result.returncode == 0, describe(result)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["check"] == "ok", describe(result)
    assert report["piox"] == piox, report  # libpiox loaded in the preload run only
    assert report["atomic_lock"] == ("range" if piox else None), report
    assert report["iterations"] == iterations, report
    assert report["reads"] >= iterations, report  # the readers ran alongside
