"""Running test/programs/share_reader (the DL-MPI paper's reader: each rank reads
size / nprocs bytes at rank * (size / nprocs)) and judging what its ranks read: that
the shares, laid end to end, are the file's chunks, each once, in some order; which
bytes each rank read from its own host's chunks; and the most any permutation of the
chunks could make local. Also maps for any file, and what PIOX_STATS says each rank
read for collective reads. Used by test_locality_remap.py, test_locality_aggregate.py,
test_locality_clients.py and bench/locality_e2e."""
import collections
import os
import random
import re
from pathlib import Path

HOSTS = ["nodeA", "nodeB", "nodeC"]
CHUNK = 1000

SHARE_LINE = re.compile(r"^share (\d+) (-?\d+) (-?\d+) (-?\d+) (-?\d+)$", re.M)
STATS_LINE = re.compile(r"^piox\[(\d+)\]: stats '.*': .*; locality ([^;]*);(.*)$", re.M)
REMAP_LINE = re.compile(r"locality remapping of (\d+) chunks: ([\d.]+)% of the bytes local "
                        r"\(([\d.]+)% without\)")
AGGREGATE_LINE = re.compile(r"locality aggregation over (\d+) chunks: ([\d.]+)% of the bytes read "
                            r"where they are stored")
OFF_LINE = re.compile(r"'(.*)': locality (?:remapping|aggregation) off: (.*)$", re.M)


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
    "stats": {rank: text after 'locality '}, "stats_lines": {rank: the routines and their
    counts}, "remap": (chunks, after %, before %) or
    None, "aggregate": (chunks, % read where stored) or None, "off": [why, ...],
    "stderr": what the ranks printed there}."""
    shares = {int(m[1]): tuple(int(x) for x in m.groups()[1:]) for m in SHARE_LINE.finditer(stdout)}
    assert sorted(shares) == list(range(nranks)), stdout + stderr
    stats = {int(m[1]): m[2] for m in STATS_LINE.finditer(stderr)}
    stats_lines = {int(m[1]): m[3] for m in STATS_LINE.finditer(stderr)}
    remap = REMAP_LINE.search(stderr)
    aggregate = AGGREGATE_LINE.search(stderr)
    return {"shares": shares, "stats": stats, "stats_lines": stats_lines,
            "remap": (int(remap[1]), float(remap[2]), float(remap[3])) if remap else None,
            "aggregate": (int(aggregate[1]), float(aggregate[2])) if aggregate else None,
            "off": [m[2] for m in OFF_LINE.finditer(stderr)], "stderr": stderr}


def stats_bytes(stats_text):
    """(local, remote) bytes from a stats line's 'remap, local N bytes, remote M bytes'."""
    m = re.match(r"remap, local (\d+) bytes, remote (\d+) bytes", stats_text)
    assert m, stats_text
    return int(m[1]), int(m[2])


def rank_hosts(nranks):
    """The host of each rank as MpiRun(hosts=HOSTS) places them: consecutive groups."""
    out = []
    for i, host in enumerate(HOSTS):
        out += [host] * (nranks // len(HOSTS) + (1 if i < nranks % len(HOSTS) else 0))
    return out


def mapped_file(directory):
    """A file of 24 chunks and a last short one in DIRECTORY, with a map (DLI_map.5)
    placing each chunk on one host, drawn with a fixed seed: nodeB holds fewer than its
    share. {"path", "data", "chunks": [(offset, length)], "hosts": [[host]], "map"}."""
    data = os.urandom(24 * CHUNK + 500)
    path = directory / "data.bin"
    path.write_bytes(data)
    return {"path": path, "data": data, **write_map(path, directory / "data.map")}


def write_map(path, mapping, chunk=CHUNK, hosts=HOSTS, seed=5):
    """A map (DLI_map.5) at MAPPING for the file at PATH as it is now, in chunks of
    CHUNK bytes (the last one shorter), each on one of HOSTS drawn with SEED.
    {"chunks": [(offset, length)], "hosts": [[host]], "map": MAPPING}."""
    draw = random.Random(seed)
    size = Path(path).stat().st_size
    chunks = [(o, min(chunk, size - o)) for o in range(0, size, chunk)]
    placed = [[draw.choice(hosts)] for _ in chunks]
    Path(mapping).write_text(f"dli-map 1\nfile {path}\n" +
                             "".join(f"{o} {n} {h[0]}\n" for (o, n), h in zip(chunks, placed)))
    return {"chunks": chunks, "hosts": placed, "map": mapping}


def run_reader(mpirun, program, path, outdir, nranks, args=(), env=None):
    """share_reader as NRANKS ranks over HOSTS, with PIOX_DEBUG and PIOX_STATS; its
    parse_run."""
    outdir.mkdir(exist_ok=True)
    result = mpirun(nranks, [program("share_reader"), path, outdir, *args], hosts=HOSTS,
                    env={"PIOX_DEBUG": "1", "PIOX_STATS": "1", **(env or {})}, check=True)
    assert " No Errors" in result.stdout, result.stdout + result.stderr
    return parse_run(result.stdout, result.stderr, nranks)


def aggregate_bytes(stats_text):
    """(local, remote, for others) bytes a rank read as a reader, from a stats line's
    'aggregate, read local N bytes, remote M bytes, for others K bytes'."""
    m = re.match(r"aggregate, read local (\d+) bytes, remote (\d+) bytes, for others (\d+) bytes",
                 stats_text)
    assert m, stats_text
    return int(m[1]), int(m[2]), int(m[3])


COLLECTIVE_READ_CALL = re.compile(r"\bMPI_File_i?read(?:_at)?_all(?:_begin)?(?:_c)?=")


def collective_read_closes(stderr):
    """Each rank's PIOX_STATS lines for files it read collectively, in the order it
    closed them: {rank: [(local, remote, for others) read as a reader, or None where
    the file had no aggregate reads]}."""
    closes = collections.defaultdict(list)
    for m in STATS_LINE.finditer(stderr):
        if COLLECTIVE_READ_CALL.search(m[3]):
            closes[int(m[1])].append(aggregate_bytes(m[2]) if m[2].startswith("aggregate")
                                      else None)
    return dict(closes)


def aggregation_plans(stderr, rank):
    """The percentage of the bytes read where they are stored of each aggregate plan
    RANK logged at open (PIOX_DEBUG), in order."""
    plans = []
    for line in stderr.splitlines():
        m = AGGREGATE_LINE.search(line)
        if m and line.startswith(f"piox[{rank}]: "):
            plans.append(float(m[2]))
    return plans


def ceph_mapped_files(cluster):
    """{replicas: mapped file (as mapped_file returns, without "map")} on the Ceph
    cluster, in pools of 1 and 2 replicas: 24 chunks of 64 KiB (an object each) and a
    short one, placed by CRUSH; hosts from the OSD map."""
    from dli_ceph_expect import expected_chunks, set_layout
    base = cluster.mount / "locality"
    base.mkdir()
    made = {}
    for replicas in (1, 2):
        directory = cluster.add_data_pool(f"locality_{replicas}", replicas, base / f"r{replicas}")
        path = directory / "data.bin"
        set_layout(path, stripe_unit=65536, stripe_count=1, object_size=65536)
        data = os.urandom(24 * 65536 + 1000)
        path.write_bytes(data)
        table = expected_chunks(cluster, path)
        made[replicas] = {"path": path, "data": data, "chunks": [(o, n) for o, n, _ in table],
                          "hosts": [hosts for _, _, hosts in table]}
    return made
