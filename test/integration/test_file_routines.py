"""The routines around data access against piox's state of a file (file_routines.c):
piox_* hints after open (applied, or refused with MPI_ERR_INFO_VALUE), the hints
reported in atomic mode, size, preallocation and sync in atomic mode, positions
against MPI_File_get_byte_offset and get_view, and MPI_File_delete of an open file.
Under piox on /tmp and on the lockless fixture, with MPICH and Open MPI.
"""
from test_shared_pointer import passed

RANKS = 3


def test_file_routines_mpich(any_dir, mpirun, program):
    passed(mpirun(RANKS, [program("file_routines"), any_dir]))


def test_file_routines_open_mpi(any_dir, openmpi_run, openmpi_program):
    passed(openmpi_run(RANKS, [openmpi_program("file_routines"), any_dir]))
