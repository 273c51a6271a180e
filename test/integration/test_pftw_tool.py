"""The pftw tool (ftw/tool) against find(1) and du(1) on one small tree with awkward
names (spaces, a newline, a tab, bytes that are not UTF-8), files of known sizes and
ages, symbolic links, a fifo, files owned by nobody: --print0 lists what find lists at 1
and 3 ranks; every selection option selects what its find test selects; --du is
du -s -b of each child; --json counts what find counts; unreadable directories give
exit status 1, usage errors 2 without hanging; --stats-matrix adds up to --json."""
import csv
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BUILD, MpiRun, _clean_env

PFTW = BUILD / "ftw" / "pftw"
DAY = 86400
NOBODY_UID = 65534
TIMEOUT = 120

# Relative path -> (size in bytes, age in days when the tree is made). Sizes sit on
# and around the unit boundaries --size rounds to; ages keep away from whole days.
FILES = {
    b"a.txt": (5, 0.25),
    b"sp ace.dat": (1024, 1.5),
    b"new\nline": (0, 2.5),
    b"bad\xff\xfe name": (1025, 3.5),
    b".hidden": (2000, 0.75),
    b"future": (7, -0.5),
    b"sub/x.log": (1048576, 10.5),
    b"sub/deep.log": (1048577, 5.5),
    b"sub/empty": (0, 1.25),
    b"sub/inner/b.log": (512, 2.25),
    b"sub/inner/c": (513, 0.1),
    b"dir with\ttab/d.txt": (1536, 30.5),
}
DIRS = {b"": 1.1, b"sub": 4.5, b"sub/inner": 0.5, b"emptydir": 20.5, b"dir with\ttab": 7.5}
SYMLINKS = {b"link": (b"a.txt", 3.3), b"sublink": (b"sub", 0.6), b"dangling": (b"nowhere", 12.5)}
FIFO = b"sub/fifo"
OWNED_BY_NOBODY = [b"sp ace.dat", b"sub/inner", b"sub/inner/b.log"]
REFERENCE_AGE = 2.0  # --newer's file


def set_age(path, days, now):
    seconds = int((now - days * DAY) * 1e9)
    os.utime(path, ns=(seconds, seconds), follow_symlinks=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The tree's root (bytes) and the --newer reference file."""
    base = tmp_path_factory.mktemp("pftw_tool")
    root = os.fsencode(base / "tree")
    now = time.time()
    for rel in DIRS:
        os.makedirs(os.path.join(root, rel), exist_ok=True)
    for rel, (size, _) in FILES.items():
        with open(os.path.join(root, rel), "wb") as f:
            f.truncate(size)
    for rel, (target, _) in SYMLINKS.items():
        os.symlink(target, os.path.join(root, rel))
    os.mkfifo(os.path.join(root, FIFO))
    if os.geteuid() == 0:
        for rel in OWNED_BY_NOBODY:
            os.chown(os.path.join(root, rel), NOBODY_UID, NOBODY_UID)
    # Ages last: creating entries changes their directory's mtime.
    for rel, (_, age) in FILES.items():
        set_age(os.path.join(root, rel), age, now)
    for rel, (_, age) in SYMLINKS.items():
        set_age(os.path.join(root, rel), age, now)
    set_age(os.path.join(root, FIFO), 0.3, now)
    for rel, age in sorted(DIRS.items(), key=lambda item: -len(item[0])):
        set_age(os.path.join(root, rel) if rel else root, age, now)
    reference = os.fsencode(base / "reference")
    open(reference, "wb").close()
    set_age(reference, REFERENCE_AGE, now)
    return root, reference


def pftw_command(n, args, as_nobody=False):
    command = MpiRun().command(n, [], piox=False) + [str(PFTW)] + list(args)
    if as_nobody:
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
    return command


@pytest.fixture(scope="module")
def pftw():
    """pftw(n, *args) runs the tool on n ranks; bytes out, bytes err."""
    if not PFTW.exists():
        pytest.fail(f"{PFTW} is missing: build ftw/ in {BUILD}")

    def run(n, *args, as_nobody=False, timeout=TIMEOUT):
        return subprocess.run(pftw_command(n, args, as_nobody), capture_output=True,
                              timeout=timeout, env=_clean_env())
    return run


def find(*args, as_nobody=False, check=True):
    prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if as_nobody else []
    result = subprocess.run(prefix + ["find", *args, "-print0"], capture_output=True, timeout=TIMEOUT)
    if check:
        assert result.returncode == 0, result.stderr
    return split0(result.stdout)


def split0(output):
    assert output == b"" or output.endswith(b"\0"), output[-100:]
    return sorted(output.split(b"\0")[:-1])


def selected(pftw, n, root, *args):
    result = pftw(n, *args, "--print0", root)
    assert result.returncode == 0, result.stderr
    return split0(result.stdout)


def json_of(pftw, n, *args):
    result = pftw(n, "--json", *args)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout  # one object, from rank 0 only
    return json.loads(lines[0])


@pytest.mark.parametrize("ranks", [1, 3])
def test_print0_lists_what_find_lists(pftw, tree, ranks):
    root, _ = tree
    listed = selected(pftw, ranks, root)
    assert listed == find(root)
    assert len(listed) == len(set(listed)), "an entry was printed twice"


@pytest.mark.parametrize("algorithm", ["drqs", "pa-drqs", "h-drqs"])
def test_print_with_threads_and_every_algorithm(pftw, tree, algorithm):
    root, _ = tree
    assert selected(pftw, 3, root, "--algorithm", algorithm, "--threads", "2",
                    "--split", "equal") == find(root)


def test_print_is_one_path_per_line(pftw, tree):
    root, _ = tree
    result = pftw(2, "--print", root)
    assert result.returncode == 0, result.stderr
    names = find(root)
    # The one name with a newline splits into two lines, as find -print does.
    assert sorted(result.stdout.split(b"\n")[:-1]) == sorted(b"\n".join(names).split(b"\n"))


def test_roots_are_spelled_as_given(pftw, tree):
    root, _ = tree
    for spelled in (root + b"/", root + b"//", os.path.relpath(root)):
        assert selected(pftw, 2, spelled) == find(spelled), spelled


def test_several_paths_are_walked_in_turn(pftw, tree):
    root, _ = tree
    sub, tab = os.path.join(root, b"sub"), os.path.join(root, b"dir with\ttab")
    assert selected(pftw, 3, sub, tab) == find(sub, tab)
    stats = json_of(pftw, 3, sub, tab)
    assert stats["entries"] == len(find(sub, tab))
    assert [os.fsencode(p) for p in stats["paths"]] == [sub, tab]


SELECTIONS = [
    (["--name", "*.log"], ["-name", "*.log"]),
    (["--name", ".*"], ["-name", ".*"]),
    (["--name", "*"], ["-name", "*"]),
    (["--name", "tree"], ["-name", "tree"]),
    (["--name", "bad*"], ["-name", "bad*"]),
    (["--name", "new?line"], ["-name", "new?line"]),
    (["--type", "f"], ["-type", "f"]),
    (["--type", "d"], ["-type", "d"]),
    (["--type", "l"], ["-type", "l"]),
    # No suffix means bytes here; find's bytes are "c".
    (["--size", "1024"], ["-size", "1024c"]),
    (["--size", "+1024"], ["-size", "+1024c"]),
    (["--size", "-1024"], ["-size", "-1024c"]),
    (["--size", "0"], ["-size", "0c"]),
    (["--size", "513c"], ["-size", "513c"]),
    (["--size", "1k"], ["-size", "1k"]),
    (["--size", "2k"], ["-size", "2k"]),
    (["--size", "+1k"], ["-size", "+1k"]),
    (["--size", "-2k"], ["-size", "-2k"]),
    (["--size", "-1M"], ["-size", "-1M"]),
    (["--size", "1M"], ["-size", "1M"]),
    (["--size", "+1M"], ["-size", "+1M"]),
    (["--size", "1G"], ["-size", "1G"]),
    (["--size", "2b"], ["-size", "2"]),
    (["--size", "+1b"], ["-size", "+1"]),
    (["--size", "257w"], ["-size", "257w"]),
    (["--mtime", "0"], ["-mtime", "0"]),
    (["--mtime", "1"], ["-mtime", "1"]),
    (["--mtime", "2"], ["-mtime", "2"]),
    (["--mtime", "+1"], ["-mtime", "+1"]),
    (["--mtime", "+0"], ["-mtime", "+0"]),
    (["--mtime", "-2"], ["-mtime", "-2"]),
    (["--mtime", "-1"], ["-mtime", "-1"]),
    (["--mtime", "-0"], ["-mtime", "-0"]),
    (["--mtime", "+7"], ["-mtime", "+7"]),
    (["--user", "root"], ["-user", "root"]),
    (["--user", "nobody"], ["-user", "nobody"]),
    (["--user", str(NOBODY_UID)], ["-user", str(NOBODY_UID)]),
    (["--type", "f", "--name", "*.log", "--size", "+1k"], ["-type", "f", "-name", "*.log", "-size", "+1k"]),
    (["--type", "d", "--mtime", "-5"], ["-type", "d", "-mtime", "-5"]),
    (["--max-depth", "1"], ["-maxdepth", "1"]),
    (["--max-depth", "0"], ["-maxdepth", "0"]),
    (["--max-depth", "1", "--type", "d"], ["-maxdepth", "1", "-type", "d"]),
]


@pytest.mark.parametrize("ours,finds", SELECTIONS, ids=[" ".join(o) for o, _ in SELECTIONS])
def test_selection_matches_find(pftw, tree, ours, finds):
    root, _ = tree
    if "nobody" in ours or str(NOBODY_UID) in ours:
        if os.geteuid() != 0:
            pytest.skip("needs root to give files to nobody")
    # find's options come first (-maxdepth), then its tests; order is irrelevant here.
    expected = find(root, *finds)
    assert selected(pftw, 3, root, *ours) == expected
    if ours[0] != "--max-depth":
        assert expected, "a selection that selects nothing proves little"


def test_newer_is_strictly_newer_than_the_file(pftw, tree):
    root, reference = tree
    expected = find(root, "-newer", reference)
    assert expected and len(expected) < len(find(root))
    assert selected(pftw, 3, root, "--newer", reference) == expected


def test_selection_counts_in_json(pftw, tree):
    root, _ = tree
    stats = json_of(pftw, 2, "--name", "*.log", root)
    assert stats["matched"] == len(find(root, "-name", "*.log"))
    assert stats["entries"] == len(find(root))


def du_of_children(root):
    """du -s -b of every child of root, dot-files included: {path: bytes}."""
    children = [os.path.join(root, name) for name in os.listdir(root)]
    result = subprocess.run(["du", "-s", "-b", *children], capture_output=True, check=True,
                            timeout=TIMEOUT)
    return result.stdout


def parse_du(output, children):
    """{path: bytes}, knowing the paths (a name may hold a newline)."""
    totals = {}
    for path in children:
        match = re.search(rb"(?:^|\n)(\d+)\t" + re.escape(path) + rb"\n", output)
        assert match, f"{path!r} missing from {output!r}"
        totals[path] = int(match.group(1))
    return totals


@pytest.mark.parametrize("ranks", [1, 3])
def test_du_matches_du_s_b(pftw, tree, ranks):
    root, _ = tree
    children = sorted(os.path.join(root, name) for name in os.listdir(root))
    assert any(os.path.basename(c).startswith(b".") for c in children)
    expected = du_of_children(root)
    result = pftw(ranks, "--du", root)
    assert result.returncode == 0, result.stderr
    assert parse_du(result.stdout, children) == parse_du(expected, children)
    # Sorted by name (in byte order), nothing else on stdout.
    assert result.stdout == b"".join(b"%d\t%s\n" % (parse_du(expected, [c])[c], c) for c in children)


def test_du_in_json(pftw, tree):
    root, _ = tree
    children = sorted(os.path.join(root, name) for name in os.listdir(root))
    stats = json_of(pftw, 3, "--du", root + b"/")
    got = {os.fsencode(item["path"]): item["bytes"] for item in stats["du"]}
    assert got == parse_du(du_of_children(root), children)


def find_counts(root):
    kinds = subprocess.run(["find", root, "-printf", r"%y %s\0"], capture_output=True, check=True,
                           timeout=TIMEOUT).stdout.split(b"\0")[:-1]
    letters = [k.split()[0] for k in kinds]
    return {
        "entries": len(kinds),
        "directories": letters.count(b"d"),
        "files": letters.count(b"f"),
        "symlinks": letters.count(b"l"),
        "others": len(kinds) - letters.count(b"d") - letters.count(b"f") - letters.count(b"l"),
        "bytes": sum(int(k.split()[1]) for k in kinds),
    }


JSON_KEYS = {"paths", "algorithm", "split", "ranks", "threads", "stat", "entries", "directories",
             "files", "symlinks", "others", "bytes", "errors", "matched", "seconds",
             "entries_per_second", "load_balance", "items_max", "items_mean", "messages",
             "message_bytes", "requests_fruitful", "requests_unfruitful", "token_rounds", "time"}


@pytest.mark.parametrize("ranks", [1, 3])
def test_json_counts_what_find_counts(pftw, tree, ranks):
    root, _ = tree
    stats = json_of(pftw, ranks, "--algorithm", "pa-drqs", "--threads", "2", root)
    assert JSON_KEYS <= set(stats)
    assert set(stats["time"]) == {"visit", "stat", "readdir", "comm"}
    expected = find_counts(root)
    assert expected["others"] == 1  # the fifo
    for key, value in expected.items():
        assert stats[key] == value, key
    assert stats["errors"] == 0
    assert stats["matched"] == expected["entries"]
    assert stats["ranks"] == ranks and stats["threads"] == 2 and stats["stat"] is True
    assert stats["algorithm"] == "pa-drqs" and stats["split"] == "random"
    assert [os.fsencode(p) for p in stats["paths"]] == [root]
    assert stats["items_max"] <= stats["entries"]
    assert stats["items_mean"] == pytest.approx(stats["entries"] / ranks)
    assert stats["load_balance"] == pytest.approx(stats["items_max"] / stats["items_mean"])
    assert stats["entries_per_second"] == pytest.approx(stats["entries"] / stats["seconds"], rel=1e-6)


def test_no_stat_counts_without_bytes(pftw, tree):
    root, _ = tree
    stats = json_of(pftw, 2, "--no-stat", root)
    assert stats["stat"] is False and stats["bytes"] == 0
    assert stats["entries"] == len(find(root))


def test_json_paths_keep_odd_bytes(pftw, tree):
    root, _ = tree
    odd = os.path.join(root, b"bad\xff\xfe name")
    stats = json_of(pftw, 2, odd)
    assert os.fsencode(stats["paths"][0]) == odd
    assert stats["entries"] == 1 and stats["files"] == 1 and stats["bytes"] == 1025


def test_summary_by_default(pftw, tree):
    root, _ = tree
    result = pftw(3, root)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert f"{len(find(root))} entries" in text
    assert "entries/s" in text and "load balance" in text and "messages" in text
    assert text.count("pftw: ") == 3  # three lines, from rank 0 only


def test_stats_matrix_adds_up_to_the_json(pftw, tree, tmp_path):
    root, _ = tree
    matrix = tmp_path / "matrix.csv"
    stats = json_of(pftw, 3, "--stats-matrix", str(matrix), root)
    with open(matrix, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys()) == ["from", "to", "messages", "bytes"]
    assert sorted((int(r["from"]), int(r["to"])) for r in rows) == [(a, b) for a in range(3) for b in range(3)]
    assert sum(int(r["messages"]) for r in rows) == stats["messages"]
    assert sum(int(r["bytes"]) for r in rows) == stats["message_bytes"]
    assert stats["messages"] > 0  # three ranks must at least pass the token around


def test_progress_does_not_disturb_the_output(pftw, tree):
    root, _ = tree
    result = pftw(2, "--progress", "--print0", root)
    assert result.returncode == 0, result.stderr
    assert split0(result.stdout) == find(root)
    for line in result.stderr.decode().splitlines():
        assert re.fullmatch(r"pftw: \d+ entries, \d+/s", line), line


@pytest.fixture
def world_readable_dir():
    """A directory nobody can reach (tmp_path's parents are private to root)."""
    path = tempfile.mkdtemp(prefix="pftw-nobody-")
    os.chmod(path, 0o755)
    yield path.encode()
    for dirpath, dirnames, _ in os.walk(path):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
    shutil.rmtree(path)


def test_unreadable_directory_exits_1_and_says_so(pftw, world_readable_dir):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run as nobody (root reads every directory)")
    root = world_readable_dir
    for rel in (b"open/inner", b"locked/hidden"):
        os.makedirs(os.path.join(root, rel))
    open(os.path.join(root, b"open/inner/file"), "wb").close()
    open(os.path.join(root, b"locked/secret"), "wb").close()
    os.chmod(os.path.join(root, b"locked"), 0o000)

    expected = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                               "find", root, "-print0"], capture_output=True, timeout=TIMEOUT)
    assert expected.returncode == 1  # find agrees that something could not be read
    for ranks in (1, 3):
        result = pftw(ranks, "--print0", root, as_nobody=True)
        assert result.returncode == 1, result.stderr
        assert split0(result.stdout) == split0(expected.stdout)
        locked = os.path.join(root, b"locked")
        assert result.stderr.count(b"pftw: '" + locked + b"': Permission denied\n") == 1, result.stderr
        result = pftw(ranks, "--json", root, as_nobody=True)
        assert result.returncode == 1
        assert json.loads(result.stdout)["errors"] == 1


def test_missing_path_exits_1(pftw, tmp_path):
    missing = str(tmp_path / "not-there")
    result = pftw(2, "--print", missing)
    assert result.returncode == 1
    assert result.stdout == b""
    assert result.stderr.decode().count(f"pftw: '{missing}': No such file or directory\n") == 1


USAGE_ERRORS = [
    ["--frobnicate"],
    ["--threads", "0"],
    ["--threads", "many"],
    ["--algorithm", "bfs"],
    ["--split", "thirds"],
    ["--type", "x"],
    ["--size", "12q"],
    ["--mtime", "1.5"],
    ["--max-depth", "-1"],
    ["--hint", "no_equals"],
    ["--hint", "other_key=1"],
    ["--hint", "pftw_threads=lots"],  # refused by the library itself (PFTW_ERR_INFO)
    ["--print", "--json"],
    ["--du", "--print0"],
    ["--no-stat", "--size", "1"],
    ["--user", "no-such-user-pftw"],
    ["--newer", "/no/such/file"],
    ["--name"],
]


@pytest.mark.parametrize("ranks", [1, 3])
@pytest.mark.parametrize("args", USAGE_ERRORS, ids=[" ".join(a) for a in USAGE_ERRORS])
def test_usage_errors_exit_2_without_hanging(pftw, tree, args, ranks):
    root, _ = tree
    result = pftw(ranks, root, *args, timeout=60)  # options may follow the path
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == b""
    assert result.stderr.count(b"pftw: ") == 1, result.stderr  # rank 0 alone explains


def test_help_exits_0_once(pftw):
    result = pftw(3, "--help")
    assert result.returncode == 0
    assert result.stdout.count(b"Usage: ") == 1
    for option in (b"--print0", b"--du", b"--json", b"--stats-matrix", b"--hint", b"--mtime"):
        assert option in result.stdout


@pytest.mark.parametrize("ranks", [1, 3])
@pytest.mark.parametrize("chunk", [1, 7, 4 << 20])
def test_funnel_delivers_each_stream_whole_in_rank_order(ranks, chunk):
    program = BUILD / "test" / "programs" / "pftw_funnel"
    if not program.exists():
        pytest.fail(f"{program} is missing: run `make check` in {BUILD}")
    result = MpiRun()(ranks, [program, chunk], piox=False, timeout=60)
    assert result.returncode == 0 and result.stdout == "funnel ok\n", result.stdout + result.stderr


def test_output_larger_than_a_funnel_chunk(pftw, tmp_path):
    """Over 4 MiB of paths (long ones): still each path whole and once."""
    deep = os.fsencode(tmp_path)
    for level in range(16):
        deep = os.path.join(deep, b"d%02d" % level + b"x" * 200)
    os.makedirs(deep)
    for i in range(2000):
        open(os.path.join(deep, b"%04d" % i + b"y" * 200), "wb").close()
    root = os.fsencode(tmp_path)
    expected = find(root)
    assert sum(len(p) + 1 for p in expected) > 4 << 20
    assert selected(pftw, 3, root, "--threads", "2") == expected
