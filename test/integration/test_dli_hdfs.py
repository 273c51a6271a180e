"""libdli's hdfs provider (WebHDFS) against recorded NameNode answers.

No HDFS runs here: test/fixtures/webhdfs/webhdfs_server.py serves Hadoop-shaped
recordings on 127.0.0.1 and records every request, so each test checks both what the
DLI_* functions answered (through dli_query and dli_hdfs_summary, one JSON line per
rank) and exactly what was asked of the NameNode. Expected chunk tables are read from
the recordings themselves, independently of libdli.
"""
import json
import sys
import urllib.parse

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "test" / "fixtures" / "webhdfs"))
import webhdfs_server as recorded  # noqa: E402

F, L, S, D = "GETFILEBLOCKLOCATIONS", "GET_BLOCK_LOCATIONS", "GETFILESTATUS", "LISTSTATUS"
QUICK = 30  # seconds: a bound on any one job here, never a timing check


@pytest.fixture(scope="module")
def namenode():
    with recorded.WebhdfsServer() as server:
        yield server


@pytest.fixture
def nn(namenode):
    namenode.take_requests()
    return namenode


@pytest.fixture
def run(mpirun, program):
    """run(name, n=1, tool="dli_query", options=(), hosts=None, env=None, ask=()) ->
    (exit code, [one parsed JSON object per line])."""
    def go(name, n=1, tool="dli_query", options=(), hosts=None, env=None, ask=()):
        result = mpirun(n, [program(tool), *options, name, *ask], piox=False, hosts=hosts,
                        env={"HADOOP_USER_NAME": "", **(env or {})}, timeout=QUICK)
        lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        assert lines, f"no output: {result.stderr}"
        return result.returncode, lines
    return go


def utf8(text):
    """dli_query prints each byte past ASCII as \\u00XX: the string's bytes, decoded."""
    return text.encode("latin-1").decode("utf-8")


def recorded_table(recording):
    """The chunks a GETFILEBLOCKLOCATIONS recording lists: [(offset, length, hosts)]."""
    body = json.loads(recorded.load_recording(recording).body)
    return [(b["offset"], b["length"], b["hosts"]) for b in body["BlockLocations"]["BlockLocation"]]


def holds(hosts, process):
    """libdli's host matching for these names: a short name matches its qualified form."""
    return any(h == process or h.split(".")[0] == process for h in hosts)


def chunks_of(map_all):
    return [(c["offset"], c["length"], c["hosts"]) for c in map_all["chunks"]]


def check_answers(line, table, hosts):
    """One dli_query line against a table: the map, each host's share, DLI_check_data."""
    size = sum(length for _, length, _ in table)
    assert line["map"]["all"]["size"] == size
    assert line["map"]["all"]["total"] == len(table)
    assert chunks_of(line["map"]["all"]) == [(o, n, h) for o, n, h in table]
    for host in hosts:
        local = [i for i, (_, _, h) in enumerate(table) if holds(h, host)]
        share = line["hosts"][host]
        assert share["chunks"] == local and share["total"] == len(local)
        local_bytes = sum(table[i][1] for i in local)
        assert share["percentage"] == pytest.approx(100.0 * local_bytes / size if size else 100.0, rel=1e-9)
    assert line["check"] == [holds(h, line["host"]) for _, _, h in table]


def asked(requests):
    return [(r.op, r.raw_path) for r in requests]


# ---- Chunk tables ------------------------------------------------------------------------

def test_block_locations_are_the_chunk_table_on_every_rank(nn, run):
    hosts = ["dn1", "dn2", "dn3", "dn9"]
    code, lines = run(nn.name("/data/four-blocks.bin"), n=4, hosts=hosts, ask=hosts,
                      options=["--init", "--hint", "dli_webhdfs_user=alice"])
    assert code == 0, lines
    table = recorded_table("block_locations_four_blocks.http")
    assert len(table) == 4 and all(len(h) == 3 for _, _, h in table)
    assert [line["host"] for line in lines] == hosts
    for line in lines:
        check_answers(line, table, hosts)
    requests = nn.take_requests()
    assert requests and {(r.op, r.raw_path, r.raw_query) for r in requests} == {
        (F, "/data/four-blocks.bin", "op=GETFILEBLOCKLOCATIONS&user.name=alice")}


def test_a_short_last_block_ends_the_file(nn, run):
    code, lines = run(nn.name("/data/short-last.bin"), ask=["dn2"])
    assert code == 0, lines
    table = recorded_table("block_locations_short_last.http")
    assert [length for _, length, _ in table] == [134217728, 134217728, 62599364]
    check_answers(lines[0], table, ["dn2"])


def test_load_asks_the_namenode_once_for_the_whole_job(nn, run):
    hosts = ["dn1", "dn2", "dn3", "dn4"]
    code, lines = run(nn.name("/data/four-blocks.bin"), n=4, hosts=hosts, ask=hosts, options=["--init", "--load"])
    assert code == 0, lines
    for line in lines:
        check_answers(line, recorded_table("block_locations_four_blocks.http"), hosts)
    assert asked(nn.take_requests()) == [(F, "/data/four-blocks.bin")]


@pytest.mark.parametrize("path", ["/legacy/short-last.bin", "/unsupported/short-last.bin", "/httpfs/short-last.bin"])
def test_older_namenodes_answer_through_get_block_locations(nn, run, path):
    """400 "Invalid value for webhdfs parameter "op"", 400 UnsupportedOperationException,
    or a bare 400 (HttpFS before 3.x): the same table, from LocatedBlocks."""
    code, lines = run(nn.name(path), n=2, hosts=["dn3", "dn5"], ask=["dn3", "dn5"], options=["--init", "--load"])
    assert code == 0, lines
    for line in lines:
        check_answers(line, recorded_table("block_locations_short_last.http"), ["dn3", "dn5"])
    assert asked(nn.take_requests()) == [(F, path), (L, path)]


def test_an_empty_file_has_no_chunks(nn, run):
    code, lines = run(nn.name("/data/empty.bin"), options=["--init", "--load"], ask=["dn1"])
    assert code == 0, lines
    assert lines[0]["map"]["all"] == {"file": nn.name("/data/empty.bin"), "size": 0, "total": 0, "chunks": []}
    assert asked(nn.take_requests()) == [(F, "/data/empty.bin"), (S, "/data/empty.bin")]


def test_a_huge_block_list(nn, run):
    count = 100000
    code, lines = run(nn.name(f"/huge/{count}-blocks.bin"), n=2, hosts=["dn1", "dn2"], tool="dli_hdfs_summary",
                      options=["--init", "--load"], ask=["dn1", "dn7"])
    assert code == 0, lines
    expected = [[i * recorded.BLOCK, recorded.BLOCK if i + 1 < count else recorded.huge_last_block_length(count),
                 *recorded.huge_block_hosts(i)] for i in range(count)]
    size = (count - 1) * recorded.BLOCK + recorded.huge_last_block_length(count)
    for line in lines:
        assert (line["size"], line["total"]) == (size, count)
        assert line["chunks"] == expected
        for host in ("dn1", "dn7"):
            local = [c for c in expected if holds(c[2:], host)]
            assert line["hosts"][host]["total"] == len(local)
            assert line["hosts"][host]["percentage"] == pytest.approx(100.0 * sum(c[1] for c in local) / size, rel=1e-9)
    assert asked(nn.take_requests()) == [(F, f"/huge/{count}-blocks.bin")]


# ---- Directories and names ------------------------------------------------------------------

def test_a_directory_lists_its_files_sorted(nn, run):
    code, lines = run(nn.name("/data"), options=["--dir"], ask=["dn1"])
    assert code == 0, lines
    files = lines[0]["files"]
    assert [f["all"]["file"] for f in files] == [nn.name(f"/data/{n}") for n in ("empty.bin", "four-blocks.bin", "short-last.bin")]
    assert chunks_of(files[2]["all"]) == recorded_table("block_locations_short_last.http")
    assert asked(nn.take_requests()) == [(D, "/data"), (F, "/data/empty.bin"), (S, "/data/empty.bin"),
                                         (F, "/data/four-blocks.bin"), (F, "/data/short-last.bin")]


def test_hdfs_names_ask_the_webhdfs_port_and_keep_their_own(nn, run):
    directory = "hdfs://127.0.0.1:8020/data"
    code, lines = run(directory, options=["--dir", "--init", "--hint", f"dli_webhdfs_port={nn.port}"], ask=["dn1"])
    assert code == 0, lines
    assert [f["all"]["file"] for f in lines[0]["files"]] == [f"{directory}/{n}" for n in ("empty.bin", "four-blocks.bin", "short-last.bin")]
    assert asked(nn.take_requests())[0] == (D, "/data")


def test_odd_bytes_in_names_are_percent_encoded(nn, run):
    code, lines = run(nn.name("/odd"), options=["--dir"], ask=["dn1"])
    assert code == 0, lines
    names = [utf8(f["all"]["file"]) for f in lines[0]["files"]]
    assert names == [nn.name("/odd/" + n) for n in sorted(["part 2.bin", "données-ü.bin", "100%?#.bin"], key=str.encode)]
    assert [r.raw_path for r in nn.take_requests()] == [
        "/odd", "/odd/100%25%3F%23.bin", "/odd/donn%C3%A9es-%C3%BC.bin", "/odd/part%202.bin"]


@pytest.mark.parametrize("path, fragment", [
    ("/odd/a\tb", "a control byte"), ("/odd/a\x1bb", "a control byte"), ("/odd/../data/x", '".." segment')])
def test_bad_paths_are_refused_before_asking(nn, run, path, fragment):
    code, lines = run(nn.name(path))
    assert (code, lines[0]["name"].split(":")[0]) == (3, "DLI_ERR_ARG")
    assert fragment in lines[0]["message"]
    assert nn.take_requests() == []


@pytest.mark.parametrize("name, fragment", [
    ("webhdfs:///data/x", "no NameNode host"), ("webhdfs://127.0.0.1:0/x", "is not a port"),
    ("hdfs://127.0.0.1:70000/x", "is not a port"), ("webhdfs://127.0.0.1:port/x", "is not a port"),
    ("webhdfs://alice@127.0.0.1/x", "user information")])
def test_bad_names_are_refused(run, name, fragment):
    code, lines = run(name)
    assert (code, lines[0]["name"].split(":")[0]) == (3, "DLI_ERR_ARG")
    assert lines[0]["message"].startswith(f"DLI_map_chunks_process: {name}: ")
    assert fragment in lines[0]["message"]


# ---- Query parameters -----------------------------------------------------------------------

def test_user_and_delegation_are_sent_and_the_token_never_shown(nn, run):
    token = "KAAKSm9i+/=TOKENVALUE"
    code, lines = run(nn.name("/errors/denied.bin"), env={"HADOOP_USER_NAME": "bob"},
                      options=["--init", "--hint", f"dli_webhdfs_delegation={token}"])
    assert lines[0]["name"].startswith("DLI_ERR_ACCESS")
    assert "user.name=bob&delegation=***" in lines[0]["message"] and "TOKENVALUE" not in lines[0]["message"]
    requests = nn.take_requests()
    assert requests[0].raw_query == "op=GETFILEBLOCKLOCATIONS&user.name=bob&delegation=" + urllib.parse.quote(token, safe="")
    assert requests[0].query == {"op": [F], "user.name": ["bob"], "delegation": [token]}


def test_the_user_hint_overrides_the_environment_and_none_sends_none(nn, run):
    run(nn.name("/data/short-last.bin"), env={"HADOOP_USER_NAME": "bob"}, options=["--init", "--hint", "dli_webhdfs_user=alice"])
    assert {r.raw_query for r in nn.take_requests()} == {"op=GETFILEBLOCKLOCATIONS&user.name=alice"}
    run(nn.name("/data/short-last.bin"))
    assert {r.raw_query for r in nn.take_requests()} == {"op=GETFILEBLOCKLOCATIONS"}


def test_proxies_in_the_environment_are_not_used(nn, run):
    """A NameNode is reached directly: a job's http_proxy is for the outside world."""
    nowhere = f"http://127.0.0.1:{recorded.refused_port()}"
    code, lines = run(nn.name("/data/short-last.bin"), env={"http_proxy": nowhere, "ALL_PROXY": nowhere},
                      options=["--init", "--load"])
    assert code == 0, lines
    assert asked(nn.take_requests()) == [(F, "/data/short-last.bin")]


# ---- Every error path ------------------------------------------------------------------------

ERRORS = [
    ("/data/missing.bin", "NOENT", "HTTP 404 FileNotFoundException: File does not exist: /data/missing.bin"),
    ("/legacy/missing.bin", "NOENT", "op=GET_BLOCK_LOCATIONS&user.name=alice: HTTP 404 FileNotFoundException"),
    ("/data", "ARG", "HTTP 404 FileNotFoundException: Path is not a file: /data"),
    ("/data/empty-directory-blocks", "ARG", "a directory, not a file"),
    ("/data/no-blocks.bin", "PROTOCOL", "op=GETFILESTATUS&user.name=alice: the file has 4096 bytes but the NameNode listed no blocks"),
    ("/errors/bad-parameter.bin", "SERVER", 'HTTP 400 IllegalArgumentException: Invalid value for webhdfs parameter "user.name"'),
    ("/errors/denied.bin", "ACCESS", "HTTP 403 AccessControlException: Permission denied: user=alice"),
    ("/errors/standby.bin", "SERVER", "HTTP 403 StandbyException: Operation category READ is not supported"),
    ("/errors/security.bin", "ACCESS", "HTTP 401 SecurityException: Failed to obtain user group information"),
    ("/errors/spnego.bin", "ACCESS", "HTTP 401 authentication required"),
    ("/errors/runtime.bin", "SERVER", "HTTP 500 RuntimeException: java.lang.NullPointerException"),
    ("/errors/html-500.bin", "PROTOCOL", "HTTP 500 with a body that is not a RemoteException (text/html;charset=iso-8859-1): <html>"),
    ("/errors/html-502.bin", "PROTOCOL", "HTTP 502 with a body that is not a RemoteException (text/html): <html><head><title>502 Bad Gateway"),
    ("/errors/empty-200.bin", "PROTOCOL", "user.name=alice: an empty body where JSON was expected"),
    ("/errors/empty-500.bin", "PROTOCOL", "HTTP 500 with an empty body"),
    ("/errors/text-200.bin", "PROTOCOL", "the body is not valid JSON"),
    ("/errors/redirect.bin", "PROTOCOL", "HTTP 307 redirect to http://dn1.hadoop.test:9864/webhdfs/v1/data/redirect.bin (a NameNode"),
    ("/errors/truncated-length.bin", "PROTOCOL", "transfer closed with 504 bytes remaining to read"),
    ("/errors/truncated-json.bin", "PROTOCOL", "the body is not valid JSON ([json.exception.parse_error.101]"),
    ("/errors/status-length-string.bin", "PROTOCOL", "op=GETFILESTATUS&user.name=alice: FileStatus.length is a string"),
    ("/wrong/offset-string.bin", "PROTOCOL", "BlockLocations.BlockLocation[1].offset is a string, not a whole number of bytes"),
    ("/wrong/length-negative.bin", "PROTOCOL", "BlockLocations.BlockLocation[2].length is negative (-62599364)"),
    ("/wrong/length-fraction.bin", "PROTOCOL", "BlockLocation[2].length is a number (62599364.5), not a whole number of bytes"),
    ("/wrong/length-missing.bin", "PROTOCOL", "BlockLocations.BlockLocation[1].length is missing"),
    ("/wrong/hosts-not-array.bin", "PROTOCOL", "BlockLocations.BlockLocation[0].hosts is a string, not an array"),
    ("/wrong/host-number.bin", "PROTOCOL", "BlockLocations.BlockLocation[0].hosts[1] is a number, not a string"),
    ("/wrong/host-empty.bin", "PROTOCOL", "BlockLocations.BlockLocation[0].hosts[1] is an empty host name"),
    ("/wrong/block-list-object.bin", "PROTOCOL", "BlockLocations.BlockLocation is an object, not an array"),
    ("/wrong/root-array.bin", "PROTOCOL", "the body is an array, not an object"),
    ("/wrong/gap.bin", "PROTOCOL", "chunk 2 at offset 268439552 of length 62599364 does not follow byte 268435456"),
    ("/wrong/overlap.bin", "PROTOCOL", "chunk 1 at offset 134213632 of length 134217728 does not follow byte 134217728"),
    ("/wrong/not-from-zero.bin", "PROTOCOL", "chunk 0 at offset 134217728 of length 134217728 does not follow byte 0"),
    ("/wrong/nested.bin", "PROTOCOL", "the body is an array, not an object"),
    ("/legacy/length-string.bin", "PROTOCOL", "op=GET_BLOCK_LOCATIONS&user.name=alice: LocatedBlocks.fileLength is a string"),
    ("/legacy/short-of-file.bin", "PROTOCOL", "the chunks end at byte 331034820 but the file has 465252548"),
    ("/legacy/host-missing.bin", "PROTOCOL", "LocatedBlocks.locatedBlocks[1].locations[0].hostName is missing"),
    ("/slow/close.bin", "PROTOCOL", "user.name=alice: Empty reply from server"),
    ("/big/declared.bin", "PROTOCOL", "user.name=alice: the answer exceeds 256 MiB"),
    ("/big/streamed.bin", "PROTOCOL", "user.name=alice: the answer exceeds 256 MiB"),
]


@pytest.mark.parametrize("path, code, fragment", ERRORS, ids=[e[0] for e in ERRORS])
def test_every_error_has_its_code_and_names_file_and_url(nn, run, path, code, fragment):
    status, lines = run(nn.name(path), options=["--init", "--hint", "dli_webhdfs_user=alice"])
    assert status == 3 and len(lines) == 1
    assert lines[0]["name"].startswith(f"DLI_ERR_{code}:")
    url = f"http://127.0.0.1:{nn.port}/webhdfs/v1{urllib.parse.quote(path)}?op="
    assert lines[0]["message"].startswith(f"DLI_map_chunks_process: {nn.name(path)}: GET {url}")
    assert fragment in lines[0]["message"]
    assert "SECRET" not in lines[0]["message"]


@pytest.mark.parametrize("path, code, fragment", [
    ("/errors/bad-listing", "PROTOCOL", 'FileStatuses.FileStatus[0].pathSuffix "a/b.bin" is not a name within the directory'),
    ("/data/four-blocks.bin", "ARG", "four-blocks.bin?op=LISTSTATUS: a file, not a directory"),
    ("/nowhere", "NOENT", "op=LISTSTATUS: HTTP 404 FileNotFoundException")])
def test_directory_errors(nn, run, path, code, fragment):
    status, lines = run(nn.name(path), options=["--dir"])
    assert status == 3 and lines[0]["name"].startswith(f"DLI_ERR_{code}:")
    assert fragment in lines[0]["message"]


def test_a_refused_connection_is_a_connect_error(run):
    name = f"webhdfs://127.0.0.1:{recorded.refused_port()}/data/x.bin"
    status, lines = run(name)
    assert status == 3 and lines[0]["name"].startswith("DLI_ERR_CONNECT:")
    assert f"{name}: GET http://127.0.0.1:" in lines[0]["message"]
    assert "Couldn't connect to server" in lines[0]["message"]


def test_a_namenode_that_never_answers_times_out(nn, run):
    status, lines = run(nn.name("/slow/stall.bin"), options=["--init", "--hint", "dli_timeout_ms=500"])
    assert status == 3 and lines[0]["name"].startswith("DLI_ERR_CONNECT:")
    assert "op=GETFILEBLOCKLOCATIONS: no answer within 500 ms" in lines[0]["message"]
    assert asked(nn.take_requests()) == [(F, "/slow/stall.bin")]


def test_load_shares_rank_0s_failure_with_every_rank(nn, run):
    status, lines = run(nn.name("/errors/denied.bin"), n=3, options=["--init", "--load"])
    assert status != 0 and [line["rank"] for line in lines] == [0, 1, 2]
    assert all(line["name"].startswith("DLI_ERR_ACCESS:") and "HTTP 403" in line["message"] for line in lines)
    assert len(nn.take_requests()) == 1
