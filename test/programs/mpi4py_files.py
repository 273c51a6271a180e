"""mpi4py_files.py DIR [--atomic] - a Python program's MPI-IO through mpi4py
(Debian's python3-mpi4py, built on Open MPI): blocking and nonblocking,
explicit-offset, shared-pointer and ordered file methods, every byte checked.

Each rank writes RECORDS records of RECLEN bytes ("rank r record k" padded):
  1. Write_at / Iwrite_at(...).Wait() alternating, at explicit offsets of its own
     region (rank r owns records r*RECORDS .. r*RECORDS+RECORDS-1);
  2. then, after a seek of the shared pointer past every region, Write_shared and
     Iwrite_shared(...).Wait() alternating, and one Write_ordered per rank;
then reads everything back: Read_at / Iread_at(...).Wait() of its own region,
Read_ordered and Read_shared / Iread_shared(...).Wait() of the shared section (after
seeking back), checking every status count and that rank 0 sees every shared record
exactly once. Prints " No Errors" on rank 0 and exits 0 when nothing failed.
"""
import os
import sys

from mpi4py import MPI

RECLEN = 64
RECORDS = 12

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL rank {rank}: {message}", file=sys.stderr, flush=True)


def record(writer, k, kind):
    text = f"{kind} rank {writer} record {k}".encode()
    return bytearray(text.ljust(RECLEN - 1) + b"\n")


def count_of(status):
    return status.Get_count(MPI.BYTE)


def main():
    directory, atomic = sys.argv[1], "--atomic" in sys.argv[2:]
    path = os.path.join(directory, "mpi4py_files")
    if rank == 0 and os.path.exists(path):
        os.unlink(path)
    comm.Barrier()
    fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
    fh.Set_atomicity(atomic)
    check(fh.Get_atomicity() == atomic, "Get_atomicity disagrees with Set_atomicity")

    status = MPI.Status()
    for k in range(RECORDS):
        data = record(rank, k, "explicit")
        offset = (rank * RECORDS + k) * RECLEN
        if k % 2:
            fh.Iwrite_at(offset, data).Wait(status)
        else:
            fh.Write_at(offset, data, status)
        check(count_of(status) == RECLEN, f"explicit write {k}: count {count_of(status)}")

    shared_start = size * RECORDS * RECLEN
    fh.Seek_shared(shared_start)
    for k in range(RECORDS):
        data = record(rank, k, "shared")
        if k % 2:
            fh.Iwrite_shared(data).Wait(status)
        else:
            fh.Write_shared(data, status)
        check(count_of(status) == RECLEN, f"shared write {k}: count {count_of(status)}")
    fh.Write_ordered(record(rank, 0, "ordered"), status)
    check(count_of(status) == RECLEN, f"ordered write: count {count_of(status)}")
    comm.Barrier()

    for k in range(RECORDS):
        data = bytearray(RECLEN)
        offset = (rank * RECORDS + k) * RECLEN
        if k % 2:
            fh.Iread_at(offset, data).Wait(status)
        else:
            fh.Read_at(offset, data, status)
        check(data == record(rank, k, "explicit"), f"explicit record {k} reads {bytes(data)!r}")
        check(count_of(status) == RECLEN, f"explicit read {k}: count {count_of(status)}")

    fh.Seek_shared(shared_start)
    shared = []
    for k in range(RECORDS):
        data = bytearray(RECLEN)
        if k % 2:
            fh.Iread_shared(data).Wait(status)
        else:
            fh.Read_shared(data, status)
        check(count_of(status) == RECLEN, f"shared read {k}: count {count_of(status)}")
        shared.append(bytes(data))
    ordered = bytearray(RECLEN)
    fh.Read_ordered(ordered, status)
    check(bytes(ordered) == record(rank, 0, "ordered"), f"ordered reads {bytes(ordered)!r}")
    fh.Close()

    everything = comm.gather(shared, root=0)
    if rank == 0:
        seen = sorted(r for per_rank in everything for r in per_rank)
        expected = sorted(bytes(record(w, k, "shared")) for w in range(size)
                          for k in range(RECORDS))
        check(seen == expected, "the shared records read back are not those written")
        check(os.path.getsize(path) == (2 * RECORDS + 1) * size * RECLEN,
              f"file size {os.path.getsize(path)}")
    total = comm.allreduce(len(failures))
    if rank == 0 and total == 0:
        print(" No Errors", flush=True)
    return 0 if total == 0 else 1


sys.exit(main())
