"""mpi4py_reads.py FILE FORM[,FORM...] VIEW[,VIEW...] - a Python client's collective
reads through mpi4py (Debian's python3-mpi4py, built on Open MPI) of a file of int32
values 0, 1, 2, ...: each FORM through each VIEW (FORM by FORM, the VIEWs in turn for
each), every pair in an open of the file of its own.

FORM is the File method:
  read_at_all        Read_at_all
  read_all           Read_all (after a Seek to the part, in the default view)
  read_at_all_split  Read_at_all_begin, then Read_at_all_end
  read_all_split     Read_all_begin, then Read_all_end
  iread_at_all       Iread_at_all, then Wait
  iread_all          Iread_all, then Wait
VIEW is the rank's part of the file and how it is seen:
  default      its share (size / nprocs ints at rank * that, the last rank the rest),
               through the default view (etype MPI_BYTE);
  blocks       every nprocs-th block of BLOCK ints, from block rank on: a view whose
               filetype is BLOCK ints resized to nprocs blocks (the ranks interleave);
  interleaved  every nprocs-th int, from int rank on: a view of MPI_INT resized to
               nprocs ints.
Each rank reads its part in PIECES calls, checking every int, every status count and,
for the pointer forms, the individual pointer after them. Rank 0 prints " No Errors"
and every rank exits 0 when nothing failed.
"""
import sys

import numpy
from mpi4py import MPI

from testlib import fail, finish, wrong_elements

BLOCK = 500
PIECES = 3

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def part(fh, view, total):
    """Sets the view; returns the ints the rank sees, in order, where they start in
    the view's offset units, and the bytes an int takes in those units."""
    if view == "default":
        first = rank * (total // size)
        last = total if rank == size - 1 else first + total // size
        return numpy.arange(first, last, dtype="i4"), first * 4, 4
    if view == "blocks":
        filetype = MPI.INT.Create_contiguous(BLOCK).Create_resized(0, BLOCK * size * 4)
        disp, ints = rank * BLOCK * 4, [numpy.arange(t + rank * BLOCK, t + (rank + 1) * BLOCK)
                                        for t in range(0, total, BLOCK * size)]
        want = numpy.concatenate(ints).astype("i4")
    elif view == "interleaved":
        filetype = MPI.INT.Create_resized(0, size * 4)
        disp, want = rank * 4, numpy.arange(rank, total, size, dtype="i4")
    else:
        raise SystemExit(f"unknown view {view}")
    filetype.Commit()
    fh.Set_view(disp, MPI.INT, filetype)
    filetype.Free()
    return want[want < total], 0, 1


def read(fh, form, offset, buf, status):
    if form == "read_at_all":
        fh.Read_at_all(offset, buf, status)
    elif form == "read_all":
        fh.Read_all(buf, status)
    elif form == "read_at_all_split":
        fh.Read_at_all_begin(offset, buf)
        fh.Read_at_all_end(buf, status)
    elif form == "read_all_split":
        fh.Read_all_begin(buf)
        fh.Read_all_end(buf, status)
    elif form == "iread_at_all":
        fh.Iread_at_all(offset, buf).Wait(status)
    elif form == "iread_all":
        fh.Iread_all(buf).Wait(status)
    else:
        raise SystemExit(f"unknown form {form}")


def read_part(path, form, view):
    """Opens the file, reads the rank's part of VIEW through FORM, closes it; the
    failures."""
    fh = MPI.File.Open(comm, path, MPI.MODE_RDONLY)
    want, start, unit = part(fh, view, fh.Get_size() // 4)
    fh.Seek(start)
    bounds = [len(want) * k // PIECES for k in range(PIECES + 1)]
    failures = 0
    for lo, hi in zip(bounds, bounds[1:]):
        buf, status = numpy.full(hi - lo, -1, dtype="i4"), MPI.Status()
        read(fh, form, start + lo * unit, buf, status)
        failures += wrong_elements(rank, f"{form} {view} from int {lo} of the part", buf,
                                   want[lo:hi])
        if status.Get_count(MPI.INT) != hi - lo:
            failures += fail(rank, f"{form} {view}: status counts {status.Get_count(MPI.INT)} "
                                   f"ints, read {hi - lo}")
    end = start + len(want) * unit
    if "_at_" not in form and fh.Get_position() != end:
        failures += fail(rank, f"{form} {view}: pointer at {fh.Get_position()}, expected {end}")
    fh.Close()
    return failures


def main():
    path, forms, views = sys.argv[1:4]
    failures = sum(read_part(path, form, view) for form in forms.split(",")
                   for view in views.split(","))
    return finish(comm, failures)


if __name__ == "__main__":
    sys.exit(main())
