"""Cases for the differential harness, as lines test/programs/differential.c reads:

    id=NAME op=ROUTINE etype=T ftype=T mtype=T disp=B off=E count=N prior=B atomic=0|1 spread=0|1

generate(seed, count) draws them from random.Random(seed): views from
differential_types (displacements, offsets in and past the first filetype), memory
types, counts of 0, 1, many and past one filetype, every data routine (explicit
offset, individual pointer, shared pointer; blocking, nonblocking, collective,
split, nonblocking collective; read and write), files that end before, inside and
after the access. The same seed gives the same lines.
"""
import math
import random

import differential_types as dt

# MPI_File_ routines by pointer: (blocking, nonblocking, collective, split,
# nonblocking collective); "{}" is read or write (as differential.c names them).
ROUTINES = {
    "at": ["{}_at", "i{}_at", "{}_at_all", "{}_at_all_begin", "i{}_at_all"],
    "individual": ["{}", "i{}", "{}_all", "{}_all_begin", "i{}_all"],
    "shared": ["{}_shared", "i{}_shared", "{}_ordered", "{}_ordered_begin"],
}
FIELDS = ("id", "op", "etype", "ftype", "mtype", "disp", "off", "count", "prior", "atomic",
          "spread")
MAX_STREAM = 4096  # bytes one access moves at most: keeps a case cheap


def case_line(case):
    return " ".join(f"{key}={case[key]}" for key in FIELDS if key in case)


def parse_case(line):
    case = dict(word.split("=", 1) for word in line.split())
    if "id" not in case:
        raise ValueError(f"case without id: {line}")
    return case


def _etype(rng):
    name = rng.choice(["byte", "char", "int", "int", "double"])
    t = dt.basic(name)
    if name in ("int", "double") and rng.random() < 0.25:
        t = dt.contig(rng.choice([2, 3]), t)
    return name, t


def _filetype(gen):
    for _ in range(20):
        t = gen.filetype()
        if dt.valid_filetype(t) and t.extent <= 2048 and t.size <= 1024:
            return t
    return gen.etype


def _memtype(gen):
    for _ in range(20):
        t = gen.memtype()
        if t.size > 0 and t.tileable and abs(t.extent) <= 2048 and t.size <= 1024:
            return t
    return gen.etype


def _count(rng, ftype, mtype, etype):
    """0, 1, a few, or past one filetype; whole etypes in all."""
    step = etype.size // math.gcd(etype.size, mtype.size)  # copies per whole etypes
    choice = rng.random()
    if choice < 0.08:
        n = 0
    elif choice < 0.3:
        n = 1
    elif choice < 0.65:
        n = rng.randint(2, 6)
    else:  # past one filetype
        n = ftype.size * rng.choice([1, 2, 3]) // mtype.size + rng.randint(1, 3)
    n = -(-n // step) * step
    while n and n * mtype.size > MAX_STREAM:
        n -= step
    return max(n, 0)


def make_case(rng, case_id):
    _, etype = _etype(rng)
    gen = dt.Generator(rng, etype)
    ftype = _filetype(gen)
    mtype = etype if rng.random() < 0.35 else _memtype(gen)
    # the memory type's basic elements must be the etype's
    pointer = rng.choice(["at", "at", "individual", "individual", "shared"])
    mode = rng.randrange(len(ROUTINES[pointer]))
    write = rng.random() < 0.55
    op = ROUTINES[pointer][mode].format("write" if write else "read")
    count = _count(rng, ftype, mtype, etype)
    etypes_per_file = max(ftype.size // etype.size, 1)
    off = rng.choice([0, 0, 1, rng.randrange(0, 2 * etypes_per_file + 1)])
    disp = rng.choice([0, 0, etype.size, rng.randrange(0, 64), rng.randrange(0, 8) * 4])
    # the file ends before, inside or after what the access touches
    reach = disp + ftype.extent * (1 + (off * etype.size + count * mtype.size) // ftype.size)
    prior = rng.choice([0, rng.randrange(0, reach + 1), reach + rng.randrange(0, 64),
                        rng.randrange(0, reach // 2 + 1)])
    return {
        "id": case_id, "op": op, "etype": etype.text, "ftype": ftype.text,
        "mtype": mtype.text, "disp": disp, "off": off, "count": count, "prior": prior,
        "atomic": int(rng.random() < 0.1),
        "spread": int(pointer != "shared" and rng.random() < 0.3),
    }


def generate(seed, count):
    rng = random.Random(seed)
    return [make_case(rng, f"s{seed}-{i}") for i in range(count)]


if __name__ == "__main__":
    import sys
    for case in generate(int(sys.argv[1]), int(sys.argv[2])):
        print(case_line(case))
