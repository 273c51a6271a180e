"""Running test/programs/dli_query (every DLI_* answer about one file, as JSON per
rank) with per-rank settings, and comparing its answers exactly with expected chunk
tables: [(offset, length, [host, ...]), ...]."""
import json
import os
import subprocess

MPIEXEC = os.environ.get("MPIEXEC", "mpiexec")
WDIR = "WDIR"


def local_to(chunks, host):
    return [i for i, (_, _, hosts) in enumerate(chunks) if host in hosts]


def percentage(chunks, host):
    """As DLI_get_data_percentage computes it (an empty file is all local)."""
    size = sum(length for _, length, _ in chunks)
    local = sum(chunks[i][1] for i in local_to(chunks, host))
    return 100.0 * local / size if size else 100.0


def printed(name):
    """A name as dli_query prints it: each byte above 0x7e as its own \\u00XX."""
    return name.encode().decode("latin-1")


def query_command(argv, ranks):
    """mpiexec with one segment per rank, each with its own settings (PIOX_HOSTNAME,
    CEPH_CONF, ...): RANKS is a list of {variable: value}; the key WDIR gives the
    rank's working directory instead (a relative name then means a file of its own)."""
    cmd = [MPIEXEC]
    for i, settings in enumerate(ranks):
        cmd += [":"] * bool(i) + ["-n", "1"]
        for key, value in settings.items():
            cmd += ["-wdir", str(value)] if key == WDIR else ["-env", key, str(value)]
        cmd += [str(a) for a in argv]
    return cmd


def run_query(program, args, ranks, timeout=60):
    """Runs dli_query ARGS as len(RANKS) ranks; returns (exit code, {rank: answer})."""
    cmd = query_command([program] + list(args), ranks)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    answers = {}
    for line in result.stdout.splitlines():
        answer = json.loads(line)
        answers.setdefault(answer["rank"], answer)  # an error after a partial answer: keep the first
    assert sorted(answers) == list(range(len(ranks))), (cmd, result.stdout, result.stderr)
    return result.returncode, answers


def chunk_rows(listed):
    """dli_query's chunk objects as (index, offset, length, hosts)."""
    return [(c["index"], c["offset"], c["length"], c["hosts"]) for c in listed["chunks"]]


def assert_map(chunk_map, name, chunks, hosts):
    """One DLI_Chunk_map (dli_query's "map") against the expected chunks."""
    assert chunk_map["all"]["file"] == printed(name)
    assert chunk_map["all"]["size"] == sum(length for _, length, _ in chunks)
    assert chunk_map["all"]["total"] == len(chunks)
    assert chunk_rows(chunk_map["all"]) == [(i, o, n, h) for i, (o, n, h) in enumerate(chunks)]
    for process, host in zip(chunk_map["processes"], hosts, strict=True):
        mine = local_to(chunks, host)
        assert process == {"process": host, "chunks": mine,
                           "local_bytes": sum(chunks[i][1] for i in mine)}


def assert_answer(answer, name, chunks, hosts, own_host):
    """A rank's whole dli_query answer about one file: the map, each asked host's
    DLI_map_process_chunks / DLI_get_total_chunks / DLI_get_data_percentage, and
    DLI_check_data at each chunk's first byte for the rank's own host."""
    assert "error" not in answer, answer
    assert answer["host"] == own_host
    assert_map(answer["map"], name, chunks, hosts)
    for host in hosts:
        mine = local_to(chunks, host)
        assert answer["hosts"][host] == {"chunks": mine, "total": len(mine),
                                         "percentage": float(f"{percentage(chunks, host):.9g}")}
    assert answer["check"] == [own_host in chunk_hosts for _, _, chunk_hosts in chunks]
