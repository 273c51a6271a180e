"""Running test/programs/share_reader (the DL-MPI paper's reader: each rank reads
size / nprocs bytes at rank * (size / nprocs)) and judging what its ranks read: that
the shares, laid end to end, are the file's chunks, each once, in some order; which
bytes each rank read from its own host's chunks; and the most any permutation of the
chunks could make local. Used by test_locality_remap.py and bench/locality_e2e."""
import collections
import re
from pathlib import Path

SHARE_LINE = re.compile(r"^share (\d+) (-?\d+) (-?\d+) (-?\d+) (-?\d+)$", re.M)
STATS_LINE = re.compile(r"^piox\[(\d+)\]: stats '.*': .*; locality ([^;]*);", re.M)
REMAP_LINE = re.compile(r"locality remapping of (\d+) chunks: ([\d.]+)% of the bytes local "
                        r"\(([\d.]+)% without\)")
OFF_LINE = re.compile(r"'(.*)': locality remapping off: (.*)$", re.M)


def share_ranges(size, nranks):
    """[(offset, length)] per rank, as the program splits the file."""
    avg = size // nranks
    return [(r * avg, size - r * avg if r == nranks - 1 else avg) for r in range(nranks)]


def read_shares(outdir, nranks):
    return [Path(outdir, f"share.{r}").read_bytes() for r in range(nranks)]


def chunk_order(data, chunks, logical):
    """The physical chunk indices, in logical order, that make up `logical` (the shares
    end to end), each chunk of `chunks` [(offset, length)] used once; AssertionError
    naming the logical offset where no unused chunk fits."""
    unused = set(range(len(chunks)))
    order, at = [], 0
    while at < len(logical):
        fits = [c for c in sorted(unused)
                if logical[at:at + chunks[c][1]] == data[chunks[c][0]:chunks[c][0] + chunks[c][1]]]
        assert fits, f"logical offset {at}: no unused chunk of the file has these bytes"
        order.append(fits[0])
        unused.discard(fits[0])
        at += chunks[fits[0]][1]
    assert not unused, f"chunks never read: {sorted(unused)}"
    return order


def local_bytes(chunks, hosts_of_chunk, order, rank_hosts):
    """Per rank, the bytes of its share that lie in chunks with a replica on its host,
    when the chunks are laid out in `order`."""
    size = sum(length for _, length in chunks)
    shares = share_ranges(size, len(rank_hosts))
    local = [0] * len(rank_hosts)
    at = 0
    for c in order:
        start, end = at, at + chunks[c][1]
        for r, (offset, length) in enumerate(shares):
            overlap = min(end, offset + length) - max(start, offset)
            if overlap > 0 and rank_hosts[r] in hosts_of_chunk[c]:
                local[r] += overlap
        at = end
    return local


def best_local_bytes(chunks, hosts_of_chunk, rank_hosts):
    """An upper bound of the local bytes any permutation of the chunks reaches: the
    maximum flow from chunks (their bytes) to the hosts holding them, each host
    taking at most its ranks' shares. A permutation with the program's split is one
    such flow, with chunks split where shares end."""
    size = sum(length for _, length in chunks)
    room = collections.Counter()
    for r, (_, length) in enumerate(share_ranges(size, len(rank_hosts))):
        room[rank_hosts[r]] += length
    hosts = sorted(room)
    # nodes: 0 source, 1..C chunks, then hosts, then the sink
    n_chunks = len(chunks)
    host_node = {h: 1 + n_chunks + i for i, h in enumerate(hosts)}
    sink = 1 + n_chunks + len(hosts)
    capacity = collections.defaultdict(int)
    edges = collections.defaultdict(set)

    def edge(a, b, cap):
        capacity[a, b] += cap
        edges[a].add(b)
        edges[b].add(a)
    for c, (_, length) in enumerate(chunks):
        edge(0, 1 + c, length)
        for h in set(hosts_of_chunk[c]) & set(hosts):
            edge(1 + c, host_node[h], length)
    for h in hosts:
        edge(host_node[h], sink, room[h])
    flow = 0
    while True:  # Edmonds-Karp: shortest augmenting paths
        parent, queue = {0: None}, collections.deque([0])
        while queue and sink not in parent:
            a = queue.popleft()
            for b in edges[a]:
                if b not in parent and capacity[a, b] > 0:
                    parent[b] = a
                    queue.append(b)
        if sink not in parent:
            return flow
        path, b = [], sink
        while parent[b] is not None:
            path.append((parent[b], b))
            b = parent[b]
        push = min(capacity[e] for e in path)
        for a, b in path:
            capacity[a, b] -= push
            capacity[b, a] += push
        flow += push


def parse_run(stdout, stderr, nranks):
    """What one run printed: {"shares": {rank: (offset, length, read, position)},
    "stats": {rank: text after 'locality '}, "remap": (chunks, after %, before %) or
    None, "off": [why, ...]}."""
    shares = {int(m[1]): tuple(int(x) for x in m.groups()[1:]) for m in SHARE_LINE.finditer(stdout)}
    assert sorted(shares) == list(range(nranks)), stdout + stderr
    stats = {int(m[1]): m[2] for m in STATS_LINE.finditer(stderr)}
    remap = REMAP_LINE.search(stderr)
    return {"shares": shares, "stats": stats,
            "remap": (int(remap[1]), float(remap[2]), float(remap[3])) if remap else None,
            "off": [m[2] for m in OFF_LINE.finditer(stderr)]}


def stats_bytes(stats_text):
    """(local, remote) bytes from a stats line's 'remap, local N bytes, remote M bytes'."""
    m = re.match(r"remap, local (\d+) bytes, remote (\d+) bytes", stats_text)
    assert m, stats_text
    return int(m[1]), int(m[2])
