"""testlib.py - what the Python test programs share, as testlib.h is for the C ones:
a failure line that names the rank, the first wrong element of an array, and the
verdict (rank 0 prints " No Errors" when no rank failed; the exit status)."""
import sys

import numpy


def fail(rank, message):
    print(f"FAIL rank {rank}: {message}", file=sys.stderr, flush=True)
    return 1


def wrong_elements(rank, what, got, want):
    """1, after a failure line naming the first element of `got` that differs from
    `want`'s (arrays of one shape), or 0 when all agree."""
    wrong = numpy.argwhere(got != want)
    if len(wrong) == 0:
        return 0
    at = tuple(wrong[0])
    return fail(rank, f"{what}: {len(wrong)} of {want.size} elements wrong, first "
                      f"{list(at)} = {got[at]}, expected {want[at]}")


def finish(comm, failures):
    """Collective over comm: the verdict on rank 0; the exit status."""
    failures = comm.allreduce(failures)
    if comm.Get_rank() == 0:
        print(" No Errors" if failures == 0 else f" Found {failures} errors", flush=True)
    return 0 if failures == 0 else 1
