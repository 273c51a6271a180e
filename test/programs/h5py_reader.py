"""h5py_reader.py FILE DATASET PATTERN[,PATTERN...] - a real Python client: Debian's h5py
(built on Open MPI, the mpio driver) reads the 2-D dataset DATASET of ints, written
beforehand with value row * 1000 + col, collectively (read_direct under
dset.collective), each rank its part of PATTERN, as test/programs/hdf5_reader.c does in
C; each PATTERN in turn, in an open of the file of its own:
  rows     a block of whole rows;
  blocks   a rectangle of a 2-D grid of the processes (MPI.Compute_dims);
  columns  every column c with c % nprocs == rank;
  all      the whole dataset, on every rank.
Every rank compares every element; rank 0 prints " No Errors" when all agree.
Not dset[part]: for integer and float datasets h5py 3.7 reads slices through its fast
reader (_selector.Reader), whose H5Dread ignores dset.collective's transfer list and
reads independently."""
import sys

import h5py
import numpy
from mpi4py import MPI

from testlib import finish, wrong_elements


def selection(pattern, shape, rank, size):
    rows, cols = shape
    if pattern == "rows":
        return numpy.s_[rows * rank // size:rows * (rank + 1) // size, :]
    if pattern == "blocks":
        grid = MPI.Compute_dims(size, 2)
        at = (rank // grid[1], rank % grid[1])
        return tuple(slice(n * a // g, n * (a + 1) // g) for n, a, g in zip(shape, at, grid))
    if pattern == "columns":
        return numpy.s_[:, rank::size]
    if pattern == "all":
        return numpy.s_[:, :]
    raise SystemExit(f"unknown pattern {pattern}")


def read_part(comm, path, name, pattern):
    """Opens the file, reads the rank's part of PATTERN, closes it; the failures."""
    rank, size = comm.Get_rank(), comm.Get_size()
    failures = 0
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        dset = f[name]
        part = selection(pattern, dset.shape, rank, size)
        rows, cols = numpy.meshgrid(numpy.arange(dset.shape[0]), numpy.arange(dset.shape[1]),
                                    indexing="ij")
        want = (rows * 1000 + cols).astype("i4")[part]
        got = numpy.full(want.shape, -1, dtype="i4")
        with dset.collective:
            dset.read_direct(got, source_sel=part)
        failures += wrong_elements(rank, f"{pattern} (indices within the part)", got, want)
    return failures


def main():
    path, name, patterns = sys.argv[1:4]
    comm = MPI.COMM_WORLD
    return finish(comm, sum(read_part(comm, path, name, p) for p in patterns.split(",")))


if __name__ == "__main__":
    sys.exit(main())
