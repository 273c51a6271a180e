"""Random MPI datatypes as typespec text (test/programs/typespec.h), for the
differential harness.

Filetypes are built so that the standard defines them as filetypes: their data is
monotone and non-negative, copy after copy, and every hole is whole etypes (they are
built from the etype, all displacements in multiples of its extent). Memory types
are free: unsorted blocks, negative displacements and lower bounds, data before the
lower bound; only their copies never overlap (a read into overlapping bytes has no
answer). The generator tracks each type's bounds as the standard defines them (the
C side computes the full typemap and checks it against MPI; a type it refuses is
reported "invalid" and skipped).
"""
import itertools
from dataclasses import dataclass

BASIC_SIZES = {"byte": 1, "char": 1, "int": 4, "double": 8}


@dataclass(frozen=True)
class Type:
    text: str
    lb: int
    ub: int
    lo: int      # first data byte (true lb); 0 when empty
    hi: int      # one past the last data byte
    size: int
    align: int
    lb_set: bool = False
    ub_set: bool = False
    monotone: bool = True   # data sorted and disjoint within one copy

    @property
    def extent(self):
        return self.ub - self.lb

    @property
    def tileable(self):
        """Copies at multiples of the extent stay monotone."""
        return self.monotone and self.hi - self.lo <= self.extent


def basic(name):
    size = BASIC_SIZES[name]
    return Type(name, 0, size, 0, size, size, size)


def compose(text, copies, pad=False, monotone=True, align=1):
    """A type made of (child, shift) copies: the standard's bounds (explicit bounds
    win over data bounds; a struct without them is padded to its alignment)."""
    copies = list(copies)
    marked_lb = [c.lb + s for c, s in copies if c.lb_set]
    marked_ub = [c.ub + s for c, s in copies if c.ub_set]
    data = [(c.lo + s, c.hi + s) for c, s in copies if c.size]
    lb = min(marked_lb) if marked_lb else min((c.lb + s for c, s in copies), default=0)
    ub = max(marked_ub) if marked_ub else max((c.ub + s for c, s in copies), default=0)
    align = max([align] + [c.align for c, _ in copies])
    if pad and not marked_lb and not marked_ub and (ub - lb) % align:
        ub += align - (ub - lb) % align
    return Type(text, lb, ub, min((a for a, _ in data), default=0),
                max((b for _, b in data), default=0), sum(c.size for c, _ in copies), align,
                bool(marked_lb), bool(marked_ub), monotone)


def contig(n, t):
    return compose(f"contig({n},{t.text})", [(t, j * t.extent) for j in range(n)],
                   monotone=t.tileable)


def vector(n, b, s, t):
    return compose(f"vector({n},{b},{s},{t.text})",
                   [(t, (i * s + j) * t.extent) for i in range(n) for j in range(b)],
                   monotone=t.tileable and s >= b)


def hvector(n, b, stride, t):
    return compose(f"hvector({n},{b},{stride},{t.text})",
                   [(t, i * stride + j * t.extent) for i in range(n) for j in range(b)],
                   monotone=t.tileable and stride >= b * t.extent)


def _blocks_text(blocks):
    return "/".join(f"{b}:{d}" for b, d in blocks)


def _sorted_disjoint(spans):
    spans = [s for s in spans if s[1] > s[0]]
    return all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def indexed(blocks, t, in_bytes=False):
    """blocks: (length, displacement) in extents of t (bytes for hindexed)."""
    unit = 1 if in_bytes else t.extent
    copies = [(t, d * unit + j * t.extent) for b, d in blocks for j in range(b)]
    spans = [(c.lo + s, c.hi + s) for c, s in copies]
    name = "hindexed" if in_bytes else "indexed"
    return compose(f"{name}({_blocks_text(blocks)},{t.text})", copies,
                   monotone=t.tileable and _sorted_disjoint(spans))


def struct(blocks):
    """blocks: (length, byte displacement, type)."""
    copies = [(t, d + j * t.extent) for b, d, t in blocks for j in range(b)]
    spans = [(c.lo + s, c.hi + s) for c, s in copies]
    text = "struct(" + "/".join(f"{b}:{d}:{t.text}" for b, d, t in blocks) + ")"
    return compose(text, copies, pad=True,
                   monotone=all(t.tileable for _, _, t in blocks) and _sorted_disjoint(spans))


def bounds_agree(t, copies):
    """False when a struct mixes explicit bounds with data beyond them: the standard
    takes the explicit bound, MPICH 4.0.2 the farther one (its extent is then not
    the standard's), so such types are not generated."""
    marked = [(c, s) for c, s in copies if c.lb_set or c.ub_set]
    if not marked:
        return True
    return all(c.lo + s >= t.lb and c.hi + s <= t.ub for c, s in copies if c.size)

def padded(t, copies):
    """Whether the struct's extent is or could be rounded up to its alignment: MPICH
    4.0.2 does so for some structs and not others (not for an hvector of doubles with
    an odd stride; yes despite explicit bounds), so such types are not generated."""
    return t.extent != compose("", copies).extent or t.extent % t.align != 0


def resized(lb, extent, t):
    return Type(f"resized({lb},{extent},{t.text})", lb, lb + extent, t.lo, t.hi, t.size,
                t.align, True, True, t.monotone)


def _grid(text, t, sizes, per_dim, order):
    """Copies of t at the elements of a grid (subarray, darray), in C or Fortran order."""
    dims = range(len(sizes))
    walk = list(dims) if order == "C" else list(reversed(dims))
    copies = []
    for index in itertools.product(*(per_dim[d] for d in walk)):
        at = dict(zip(walk, index))
        linear = 0
        for d in walk:
            linear = linear * sizes[d] + at[d]
        copies.append((t, linear * t.extent))
    whole = t.extent
    for s in sizes:
        whole *= s
    made = compose(text, copies, monotone=t.tileable)
    return Type(text, 0, whole, made.lo, made.hi, made.size, made.align, True, True,
                made.monotone)


def _dims(values):
    return "x".join(str(v) for v in values)


def subarray(order, sizes, subsizes, starts, t):
    text = f"subarray({order},{_dims(sizes)},{_dims(subsizes)},{_dims(starts)},{t.text})"
    return _grid(text, t, sizes, [range(s, s + n) for s, n in zip(starts, subsizes)], order)


def darray_owned(size, distrib, darg, procs, coord):
    if distrib == "n":
        return list(range(size))
    if distrib == "b":
        block = -(-size // procs) if darg == "d" else darg
        return list(range(coord * block, min(size, (coord + 1) * block)))
    block = 1 if darg == "d" else darg
    return [i for i in range(size) if (i // block) % procs == coord]


def darray(nprocs, rank, order, gsizes, distribs, dargs, psizes, t):
    text = (f"darray({nprocs},{rank},{order},{_dims(gsizes)},{_dims(distribs)},"
            f"{_dims(dargs)},{_dims(psizes)},{t.text})")
    coords, rest = [], rank
    for p in reversed(psizes):  # the process grid is row-major in either order
        coords.insert(0, rest % p)
        rest //= p
    owned = [darray_owned(g, d, a, p, c)
             for g, d, a, p, c in zip(gsizes, distribs, dargs, psizes, coords)]
    return _grid(text, t, gsizes, owned, order)


class Generator:
    """Random types over one etype, from random.Random `rng`."""

    def __init__(self, rng, etype):
        self.rng = rng
        self.etype = etype
        self.unit = etype.extent

    # filetypes: monotone, non-negative, holes of whole etypes; memory types: free
    FILE_KINDS = ["contig", "vector", "vector", "hvector", "indexed", "hindexed", "resized",
                  "resized", "struct", "subarray", "darray"]
    MEMORY_KINDS = ["contig", "vector", "hvector", "indexed", "hindexed", "resized",
                    "resized", "struct", "subarray", "darray"]

    def filetype(self, depth=2):
        return self._type(depth, file=True)

    def memtype(self, depth=2):
        return self._type(depth, file=False)

    def _type(self, depth, file):
        rng = self.rng
        if depth == 0 or rng.random() < (0.15 if file else 0.2):
            return self.etype
        kind = rng.choice(self.FILE_KINDS if file else self.MEMORY_KINDS)
        if kind in ("subarray", "darray"):
            return self._grid_type(kind, self.etype)
        child = self._type(depth - 1, file)
        if kind == "resized":
            return self._resized(child, file)
        return self._blocks(kind, child, file)

    def _resized(self, child, file):
        """Lower bounds before, at and after the data (positive and negative), and
        extents from the data's span up (a file copy must hold its data)."""
        rng, u = self.rng, self.unit
        span = child.hi - child.lo
        lb = child.lo + u * rng.choice([-3, -2, -1, 0, 0, 1, 2])
        if not file and rng.random() < 0.3:
            lb = child.lo - rng.randrange(0, 40)
        extent = max(span, u) + u * rng.choice([0, 0, 1, 2, 3])
        if not file and rng.random() < 0.3:
            extent = max(span, 1) + rng.randrange(0, 24)
        return resized(lb, extent, child)

    def _block_layout(self, child, file):
        """A few blocks (length, start in extents): sorted and disjoint, with gaps and
        zero-length blocks; shuffled for memory types."""
        rng = self.rng
        blocks, at = [], rng.choice([0, 0, 1, 2])
        for _ in range(rng.randint(1, 4)):
            length = rng.choice([0, 1, 1, 2, 3])
            blocks.append((length, at))
            at += length + rng.choice([0, 1, 2])
        if not file:
            rng.shuffle(blocks)
        return blocks

    def _blocks(self, kind, child, file):
        rng, u = self.rng, self.unit
        extent = max(child.extent, 1)
        if not child.tileable:
            child = self._resized(child, file) if not file else child
            if not child.tileable:
                return child
            extent = child.extent
        if kind == "contig":
            return contig(rng.randint(0 if not file else 1, 4), child)
        if kind == "vector":
            b = rng.randint(1, 3)
            return vector(rng.randint(1, 4), b, b + rng.choice([0, 1, 2, 3]), child)
        if kind == "hvector":
            b = rng.randint(1, 3)
            gap = u * rng.choice([0, 1, 2]) if file else rng.randrange(0, 16)
            stride = b * extent + gap
            if not file and rng.random() < 0.2:
                stride = -stride  # descending memory
            return hvector(rng.randint(1, 4), b, stride, child)
        blocks = self._block_layout(child, file)
        if kind == "indexed":
            return indexed(blocks, child)
        if kind == "hindexed":
            return indexed([(b, d * extent + (0 if file else rng.randrange(0, 4) * u))
                            for b, d in blocks], child, in_bytes=True)
        return self._struct(child, file)

    def _struct(self, child, file):
        """Blocks of different types over the same etype, with gaps between them."""
        rng, u = self.rng, self.unit
        parts, at = [], 0
        for _ in range(rng.randint(1, 3)):
            t = child if rng.random() < 0.5 else self.etype
            length = rng.choice([0, 1, 1, 2])
            at += u * rng.choice([0, 1, 2])
            start = at - t.lo if t.lo < 0 else at
            parts.append((length, start, t))
            at = start + (t.hi if length == 0 else t.lo + (length - 1) * t.extent + t.hi - t.lo)
            at = -(-at // u) * u
        if not file:
            rng.shuffle(parts)
        for candidate in (parts, [(b, d, self.etype) for b, d, _ in parts]):
            made = struct(candidate)
            copies = [(t, d + j * t.extent) for b, d, t in candidate for j in range(b)]
            if bounds_agree(made, copies) and not padded(made, copies):
                return made
        return self.etype

    def _grid_type(self, kind, t):
        rng = self.rng
        ndims = rng.randint(1, 3)
        order = rng.choice("CF")
        sizes = [rng.randint(1, 5) for _ in range(ndims)]
        if kind == "subarray":
            subs = [rng.randint(1, s) for s in sizes]
            starts = [rng.randint(0, s - n) for s, n in zip(sizes, subs)]
            return subarray(order, sizes, subs, starts, t)
        psizes = [rng.choice([1, 2]) if s > 1 else 1 for s in sizes]
        nprocs = 1
        for p in psizes:
            nprocs *= p
        distribs, dargs = [], []
        for s, p in zip(sizes, psizes):
            d = "n" if p == 1 and rng.random() < 0.3 else rng.choice("bc")
            distribs.append(d)
            if d == "b":
                dargs.append(rng.choice(["d", -(-s // p)]))
            elif d == "c":
                dargs.append(rng.choice(["d", 1, 2]))
            else:
                dargs.append("d")
        return darray(nprocs, rng.randrange(nprocs), order, sizes, distribs, dargs, psizes, t)


def valid_filetype(t):
    """The standard's condition on a filetype (and ours: some data)."""
    return t.size > 0 and t.tileable and t.lo >= 0
