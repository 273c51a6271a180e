"""libdli's posix and static providers through test/programs/dli_query: local files
alone (every chunk local everywhere) and under DLI_Load, where ranks that present
themselves as different hosts (PIOX_HOSTNAME) and run in different directories see
different copies of the same relative name: a full copy, a sparse partly staged copy,
no copy; a shared (FUSE) file system; directories; odd names; map files (DLI_map.5)
through the hint and the variable, and malformed ones; refused settings."""
import os

import pytest

from dli_expect import WDIR, assert_answer, run_query

CHUNK = 65536
DLI_ERR = {"ARG": 1, "INFO": 2, "NOENT": 3, "MAP": 8}


@pytest.fixture(scope="module")
def query(program):
    path = program("dli_query")
    return lambda args, ranks: run_query(path, args, ranks)


def write_file(path, size, chunks_with_data=None):
    """SIZE random bytes at PATH; with CHUNKS_WITH_DATA, a sparse file holding data only in
    those 64 KiB chunks (the rest holes), as a partial staging leaves it."""
    data = os.urandom(size)
    with open(path, "wb") as out:
        if chunks_with_data is None:
            out.write(data)
            return path
        out.truncate(size)
        for c in chunks_with_data:
            out.seek(c * CHUNK)
            out.write(data[c * CHUNK:(c + 1) * CHUNK])
    return path


def chunks_of(size, hosts_of):
    """The expected table: 64 KiB chunks over SIZE, hosts_of(index) each."""
    return [(o, min(CHUNK, size - o), hosts_of(o // CHUNK)) for o in range(0, size, CHUNK)]


def errors_of(answers):
    return {rank: answer.get("error") for rank, answer in answers.items()}


SIZE = 5 * CHUNK - 100    # 5 chunks, the last short
HINT = ["--hint", f"dli_chunk_size={CHUNK}"]


def test_a_file_alone_is_local_to_every_host(query, tmp_path):
    name = str(write_file(tmp_path / "alone", SIZE))
    code, answers = query(["--init"] + HINT + [name, "nodeA", "other.example"],
                          [{"PIOX_HOSTNAME": "nodeQ"}])
    assert code == 0
    answer = answers[0]
    assert [c["hosts"] for c in answer["map"]["all"]["chunks"]] == [["*"]] * 5
    assert [c["length"] for c in answer["map"]["all"]["chunks"]] == [CHUNK] * 4 + [CHUNK - 100]
    for host in ("nodeA", "other.example"):
        assert answer["hosts"][host] == {"chunks": [0, 1, 2, 3, 4], "total": 5, "percentage": 100}
    assert answer["check"] == [True] * 5


def test_the_default_chunk_size_is_64_mib(query, tmp_path):
    name = str(write_file(tmp_path / "small", 1000))
    code, answers = query([name], [{}])
    assert code == 0
    assert [(c["offset"], c["length"]) for c in answers[0]["map"]["all"]["chunks"]] == [(0, 1000)]


def test_load_finds_which_host_holds_which_chunk(query, tmp_path):
    """nodeA has a full copy, nodeB a sparse one with chunks 1 and 3, nodeC none: the
    same relative name in each rank's own directory."""
    dirs = {host: tmp_path / host for host in ("nodeA", "nodeB", "nodeC")}
    for d in dirs.values():
        d.mkdir()
    write_file(dirs["nodeA"] / "data", SIZE)
    write_file(dirs["nodeB"] / "data", SIZE, chunks_with_data=[1, 3])
    ranks = [{"PIOX_HOSTNAME": host, WDIR: d} for host, d in dirs.items()]
    code, answers = query(["--init", "--load"] + HINT + ["data", "nodeA", "nodeB", "nodeC"], ranks)
    assert code == 0, answers
    expected = chunks_of(SIZE, lambda c: ["nodeA", "nodeB"] if c in (1, 3) else ["nodeA"])
    for rank, host in enumerate(dirs):
        assert_answer(answers[rank], "data", expected, ["nodeA", "nodeB", "nodeC"], host)


def test_a_shorter_copy_holds_its_prefix(query, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_file(tmp_path / "a" / "data", SIZE)
    write_file(tmp_path / "b" / "data", 2 * CHUNK + 10)   # chunks 0 and 1 whole, 2 in part
    ranks = [{"PIOX_HOSTNAME": "nodeA", WDIR: tmp_path / "a"}, {"PIOX_HOSTNAME": "nodeB", WDIR: tmp_path / "b"}]
    code, answers = query(["--init", "--load"] + HINT + ["data", "nodeA", "nodeB"], ranks)
    assert code == 0, answers
    expected = chunks_of(SIZE, lambda c: ["nodeA", "nodeB"] if c < 2 else ["nodeA"])
    assert_answer(answers[1], "data", expected, ["nodeA", "nodeB"], "nodeB")


def test_ranks_of_one_host_count_once(query, tmp_path):
    write_file(tmp_path / "data", SIZE)
    ranks = [{"PIOX_HOSTNAME": "nodeA"}, {"PIOX_HOSTNAME": "nodeA"}, {"PIOX_HOSTNAME": "nodeB"}]
    code, answers = query(["--init", "--load"] + HINT + [str(tmp_path / "data"), "nodeA", "nodeB"], ranks)
    assert code == 0
    # One machine: both hosts see the same node-local file, each listed once per chunk.
    assert [c["hosts"] for c in answers[2]["map"]["all"]["chunks"]] == [["nodeA", "nodeB"]] * 5


def test_a_shared_file_system_gives_no_information(query, lockless_dir):
    """The lockless fixture is a FUSE file system: a copy there is nobody's own."""
    name = str(write_file(lockless_dir / "shared", SIZE))
    ranks = [{"PIOX_HOSTNAME": "nodeA"}, {"PIOX_HOSTNAME": "nodeB"}]
    code, answers = query(["--init", "--load"] + HINT + [name, "nodeA", "nodeB"], ranks)
    assert code == 0, answers
    assert [c["hosts"] for c in answers[0]["map"]["all"]["chunks"]] == [["*"]] * 5
    assert answers[1]["hosts"]["nodeB"]["percentage"] == 100


def test_a_directory_lists_its_regular_files(query, tmp_path):
    d = tmp_path / "set"
    d.mkdir()
    write_file(d / "b file", 10)
    write_file(d / "a\nnaïve", CHUNK + 1)
    (d / "sub").mkdir()
    write_file(d / "sub" / "deeper", 10)
    os.symlink(d / "b file", d / "link")
    code, answers = query(["--dir", "--init"] + HINT + [str(d), "nodeA"], [{"PIOX_HOSTNAME": "nodeA"}])
    assert code == 0, answers
    files = answers[0]["files"]
    assert [f["all"]["file"] for f in files] == [str(d / "a\nnaïve").encode().decode("latin-1"), str(d / "b file")]
    assert [f["all"]["total"] for f in files] == [2, 1]
    assert files[0]["processes"] == [{"process": "nodeA", "local_bytes": CHUNK + 1, "chunks": [0, 1]}]


def test_a_missing_file_is_noent_everywhere(query, tmp_path):
    code, answers = query([str(tmp_path / "missing")], [{}])
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["NOENT"]}
    code, answers = query(["--init", "--load", str(tmp_path / "missing")], [{}, {}])
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["NOENT"], 1: DLI_ERR["NOENT"]}
    assert "no host sees this file" in answers[1]["message"]
    code, answers = query([str(tmp_path)], [{}])   # a directory is not a file
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["ARG"]}


@pytest.mark.parametrize("hint", ["dli_chunk_size=0", "dli_chunk_size=lots", "dli_chunk_size=-5",
                                  "dli_chunksize=4096", "dli_timeout_ms=1h"])
def test_unusable_hints_are_refused_on_every_rank(query, tmp_path, hint):
    name = str(write_file(tmp_path / "f", 10))
    code, answers = query(["--init", "--hint", hint, name], [{}, {}])
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["INFO"], 1: DLI_ERR["INFO"]}
    assert hint.split("=")[0] in answers[0]["message"]


MAP = """# a map of two files
dli-map 1
file /archive/run%2042/input.bin   # "run 42"
0      100000  nodeA,nodeB
100000 100000  nodeB,nodeC
200000 5       nodeC
file /archive/run%2042/empty
file /archive/other
0 10 -
"""


@pytest.fixture
def map_file(tmp_path):
    path = tmp_path / "placement.map"
    path.write_text(MAP)
    return path


EXPECTED = [(0, 100000, ["nodeA", "nodeB"]), (100000, 100000, ["nodeB", "nodeC"]), (200000, 5, ["nodeC"])]


@pytest.mark.parametrize("how", ["hint", "variable"])
def test_a_map_file_answers_for_its_names(query, map_file, how):
    name = "/archive/run 42/input.bin"
    args = ["--init", "--hint", f"dli_map_file={map_file}"] if how == "hint" else []
    settings = {} if how == "hint" else {"PIOX_DLI_MAP": map_file}
    ranks = [{**settings, "PIOX_HOSTNAME": host} for host in ("nodeA", "nodeC", "NODEB.cluster.example")]
    code, answers = query(args + [name, "nodeA", "nodeB", "nodeC"], ranks)
    assert code == 0, answers
    for rank, host in enumerate(("nodeA", "nodeC")):
        assert_answer(answers[rank], name, EXPECTED, ["nodeA", "nodeB", "nodeC"], host)
    assert answers[2]["check"] == [True, True, False]   # a qualified name matches its short form


def test_a_map_lists_directories_and_empty_files(query, map_file):
    code, answers = query(["--dir", "--init", "--hint", f"dli_map_file={map_file}", "/archive/run 42", "nodeC"], [{}])
    assert code == 0, answers
    files = answers[0]["files"]
    assert [f["all"]["file"] for f in files] == ["/archive/run 42/empty", "/archive/run 42/input.bin"]
    assert files[0]["all"]["size"] == 0 and files[0]["processes"][0]["chunks"] == []
    assert files[1]["processes"][0] == {"process": "nodeC", "local_bytes": 100005, "chunks": [1, 2]}


def test_names_the_map_does_not_list_go_to_the_file_system(query, map_file, tmp_path):
    name = str(write_file(tmp_path / "local", 10))
    code, answers = query(["--init", "--hint", f"dli_map_file={map_file}", name], [{}])
    assert code == 0 and answers[0]["map"]["all"]["chunks"][0]["hosts"] == ["*"]


@pytest.mark.parametrize("text, line, words", [
    ("", 0, "empty map"),
    ("dli-map 2\n", 1, "version 2"),
    ("file /x\n", 1, "dli-map 1"),
    ("dli-map 1\n0 10 nodeA\n", 2, "before any"),
    ("dli-map 1\nfile /x\n0 10 nodeA\n20 10 nodeA\n", 4, "does not start where"),
    ("dli-map 1\nfile /x\n0 10 nodeA\n5 10 nodeA\n", 4, "does not start where"),
    ("dli-map 1\nfile /x\n0 0 nodeA\n", 3, "length 0"),
    ("dli-map 1\nfile /x\n0 -1 nodeA\n", 3, "not a whole number"),
    ("dli-map 1\nfile /x\n0 99999999999999999999 nodeA\n", 3, "below 2^63"),
    ("dli-map 1\nfile /x\n0 9223372036854775807 a\n9223372036854775807 1 a\n", 4, "2^63"),
    ("dli-map 1\nfile /x\n0 10 nodeA,,nodeB\n", 3, "empty host"),
    ("dli-map 1\nfile /x\n0 10 nodeA,nodeA\n", 3, "twice in one chunk"),
    ("dli-map 1\nfile /x\n0 10\n", 3, "OFFSET LENGTH"),
    ("dli-map 1\nfile /x\nfile /x\n", 3, "listed twice"),
    ("dli-map 1\nfile /x%4\n", 2, "two hex digits"),
    ("dli-map 1\nfile /x%00\n", 2, "%00"),
    ("dli-map 1\nsize 10\n", 2, "unknown keyword"),
    ("dli-map 1\nfile /x\x01\n", 2, "control byte"),
    ("dli-map 1\nfile /x\n0 10 a\x00\n", 3, "NUL"),
    ("dli-map 1\nfile /" + "x" * 70000 + "\n", 2, "longer than"),
], ids=lambda value: None if not isinstance(value, str) or len(value) < 40 else "long")
def test_malformed_maps_name_the_line(query, tmp_path, text, line, words):
    path = tmp_path / "bad.map"
    path.write_bytes(text.encode("latin-1"))
    code, answers = query(["--init", "--hint", f"dli_map_file={path}", "/x"], [{}])
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["MAP"]}
    assert f"{path}:{line}: " in answers[0]["message"] and words in answers[0]["message"], answers[0]["message"]


def test_load_keeps_the_map_error_on_every_rank(query, tmp_path):
    # DLI_Load chooses the provider collectively; a malformed map must still read as
    # DLI_ERR_MAP with the map's line, not as "no provider".
    path = tmp_path / "bad.map"
    path.write_bytes(b"dli-map 1\nfile /x\n0 ten a\n")
    code, answers = query(["--init", "--load", "--hint", f"dli_map_file={path}", "/x"], [{}, {}])
    assert code == 3 and errors_of(answers) == {0: DLI_ERR["MAP"], 1: DLI_ERR["MAP"]}
    assert f"{path}:3: " in answers[0]["message"], answers[0]["message"]
