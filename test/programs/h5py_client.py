"""h5py_client.py FILE ATOMIC - a real Python client: Debian's h5py (built on Open
MPI, the mpio driver) writes one 2-D dataset of ints, ROWS x COLS, from every rank:
each rank its block of rows (independent writes), then, collectively, every column
c with c % size == rank of the first STRIPED_ROWS rows (interleaved between the
processes). ATOMIC=1 sets MPI atomic mode (File.atomic). Every rank then reads the
whole dataset back and compares it; rank 0 prints " No Errors" when all agree.
Values: row * 1000 + col, and -(row * 1000 + col) - 1 in the striped rows."""
import sys

import h5py
import numpy
from mpi4py import MPI

from testlib import fail, finish, wrong_elements

ROWS, COLS, STRIPED_ROWS = 64, 96, 8


def expected():
    rows, cols = numpy.meshgrid(numpy.arange(ROWS), numpy.arange(COLS), indexing="ij")
    values = (rows * 1000 + cols).astype("i4")
    values[:STRIPED_ROWS] = -values[:STRIPED_ROWS] - 1
    return values


def main():
    path, atomic = sys.argv[1], sys.argv[2] == "1"
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    want = expected()
    failures = 0
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        f.atomic = atomic
        if f.atomic != atomic:
            failures += fail(rank, f"atomic mode is {f.atomic}")
        dset = f.create_dataset("values", (ROWS, COLS), dtype="i4")
        first, last = rank * ROWS // size, (rank + 1) * ROWS // size
        block = want[first:last].copy()
        block[: max(0, STRIPED_ROWS - first)] = (-block[: max(0, STRIPED_ROWS - first)] - 1)
        dset[first:last, :] = block  # the striped rows get overwritten below
        comm.Barrier()
        with dset.collective:
            dset[:STRIPED_ROWS, rank::size] = want[:STRIPED_ROWS, rank::size]
        f.flush()
        comm.Barrier()
        failures += wrong_elements(rank, "the dataset", dset[...], want)
    return finish(comm, failures)


if __name__ == "__main__":
    sys.exit(main())
