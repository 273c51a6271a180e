"""MPI-4's large-count routines (MPI_File_write_shared_c and the rest) take the same
paths through piox as their int forms: they move the same shared pointer and take
the same atomic-mode locks (test_atomic_mode.py runs its readers against _c
writers). Before piox wrapped them, a program mixing write_shared with
write_shared_c lost half of its records.

Checked byte by byte, under piox: every record of a log written with int and _c
forms mixed, on /tmp and on the lockless fixture (records_check); accesses of more
than 2^31 bytes, counts past INT_MAX included, into a sparse file on /tmp
(large_count.c).
"""
import pytest

from test_shared_pointer import passed, records_check

RANKS = 4
RECORDS = 1200
SEED = 7


def test_mixed_forms_keep_every_record(any_dir, mpirun, program):
    path = any_dir / "records"
    passed(mpirun(RANKS, [program("records"), path, "write_mixed", RECORDS, SEED],
                  env={"PIOX_STATS": "1"}))
    out = records_check(program, path, "records", RANKS, RECORDS, SEED)
    assert f"records={RANKS * RECORDS} " in out


def test_mixed_forms_reach_piox(tmp_path, mpirun, program):
    """Each form is counted on its own line of PIOX_STATS: both reached piox."""
    path = tmp_path / "records"
    result = mpirun(2, [program("records"), path, "write_mixed", 16, SEED],
                    env={"PIOX_STATS": "1"})
    passed(result)
    for routine in ["MPI_File_write_shared=2", "MPI_File_write_shared_c=2",
                    "MPI_File_write_ordered_begin_c=2", "MPI_File_iwrite_shared_c=2",
                    "MPI_File_write_ordered_c=2", "MPI_File_write_ordered_end=4"]:
        assert result.stderr.count(f" {routine}") == 2, (routine, result.stderr)


def test_mixed_forms_under_open_mpi(tmp_path, openmpi_run, openmpi_program, program):
    """Open MPI 4.1 has no _c routines: the same program takes the int forms only."""
    path = tmp_path / "records"
    passed(openmpi_run(RANKS, [openmpi_program("records"), path, "write_mixed", 400, SEED]))
    records_check(program, path, "records", RANKS, 400, SEED)


def test_accesses_past_two_gib(tmp_path, mpirun, program):
    """On /tmp only: piox's path for these calls is the same on every file system, and
    the 8 GiB that the program moves through the lockless FUSE fixture took 110 s of the suite here."""
    path = tmp_path / "large_count"
    try:
        passed(mpirun(1, [program("large_count"), tmp_path], timeout=600))
        # The hole below the data stayed a hole: far fewer blocks than the size.
        stat = path.stat()
        assert stat.st_size == (1 << 32) + 12345 + (1 << 31) + 4104
        assert stat.st_blocks * 512 < stat.st_size - (1 << 31)
    finally:
        path.unlink(missing_ok=True)
