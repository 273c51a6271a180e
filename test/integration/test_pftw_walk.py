"""libpftw: every entry of real trees is visited exactly once, as find(1) lists it,
for every algorithm, 1, 2, 4 and 8 ranks, and 1 and 4 threads; stops, skips, slow
ranks, depth and device limits, and bad calls."""
import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import BUILD, REPO, MpiRun
from walklib import (PFTW_ERR_ARG, PFTW_ERR_INFO, PFTW_ERR_NOT_SAME, PFTW_ERR_THREAD,
                     PFTW_STOPPED, PFTW_SUCCESS, find_listing, read_walk, run_walk, type_letter)

ALGORITHMS = ["drqs", "pa-drqs", "h-drqs"]
TREES_DIR = REPO / "_build" / "trees"
_listings = {}


@pytest.fixture(scope="session")
def walk_list():
    path = BUILD / "test" / "programs" / "walk_list"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make check` in {BUILD}")
    return str(path)


def tree(kind, **params):
    """A generated tree (made once, kept in _build/trees) and find's listing of it."""
    sys.path.insert(0, str(REPO / "test" / "fixtures" / "trees"))
    from make_tree import ensure_tree
    root = ensure_tree(kind, str(TREES_DIR), **params)["path"]
    key = (kind, tuple(sorted(params.items())))
    if key not in _listings:
        _listings[key] = find_listing(root)
    return root, _listings[key]


def assert_same_as_find(walk, listing, with_stat=True):
    assert walk.duplicates() == [], f"visited twice: {walk.duplicates()[:5]}"
    visited = {e.path: e for e in walk.entries}
    missing = set(listing) - set(visited)
    extra = set(visited) - set(listing)
    assert not missing and not extra, f"missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}"
    for path, (kind, size) in listing.items():
        entry = visited[path]
        assert type_letter(entry) == kind or (kind not in "fdl" and type_letter(entry) == "?"), path
        if with_stat:
            assert entry.size == size, f"{path}: size {entry.size}, find says {size}"
    stats = walk.stats
    assert stats["entries"] == len(listing)
    assert stats["files"] == sum(1 for kind, _ in listing.values() if kind == "f")
    assert stats["directories"] == sum(1 for kind, _ in listing.values() if kind == "d")
    assert stats["symlinks"] == sum(1 for kind, _ in listing.values() if kind == "l")
    if with_stat:
        assert stats["bytes"] == sum(size for _, size in listing.values())
    assert sum(stats["items"]) == len(listing)


# Every algorithm, rank count and thread count on the skewed tree (one huge
# subtree: the most stealing and the latest termination); the other shapes under
# every algorithm at the extremes, 2 ranks of 1 thread and 8 ranks of 4: every pair
# of shape and algorithm, and every algorithm at every rank and thread count, in 42
# walks (the whole cross product, 96, took 320 s of a 43-minute suite here). The
# trees are smaller than the defaults: at full size each walk spent about 5 s in
# this file's parsing and comparing (the deep tree's 10,000 paths of up to 20,001
# bytes). Skewed 100,000 entries of 500,000, wide 50,001 of 200,001, deep 3,000
# levels of 10,000, whose paths (up to 6,001 bytes) still pass PATH_MAX. The stat, du
# and stop tests below walk the same skewed tree: the full one (and find's listing of
# it, made for them alone) cost about 40 s more, for the same shape.
SKEWED = {"entries": 100_000}
MATRIX_SIZES = {"skewed": SKEWED, "wide": {"entries": 50_001}, "deep": {"depth": 3_000}}
MATRIX = ([("skewed", algorithm, ranks, threads) for algorithm in ALGORITHMS
           for ranks in (1, 2, 4, 8) for threads in (1, 4)] +
          [(kind, algorithm, ranks, threads) for kind in ("wide", "deep", "adversarial")
           for algorithm in ALGORITHMS for ranks, threads in ((2, 1), (8, 4))])


@pytest.mark.parametrize("kind,algorithm,ranks,threads", MATRIX)
def test_every_entry_exactly_once(kind, algorithm, ranks, threads, walk_list, tmp_path):
    root, listing = tree(kind, **MATRIX_SIZES.get(kind, {}))
    walk = run_walk(walk_list, tmp_path / "out", ranks, root,
                    {"pftw_algorithm": algorithm, "pftw_threads": threads, "pftw_stat": "yes"})
    assert walk.returncode == 0, walk.stdout + walk.stderr
    assert walk.stats["code"] == PFTW_SUCCESS
    assert_same_as_find(walk, listing)
    assert len({e.thread for e in walk.entries}) <= threads


@pytest.mark.parametrize("split", ["random", "equal"])
def test_without_stat_types_come_from_the_directory(split, walk_list, tmp_path):
    root, listing = tree("skewed", **SKEWED)
    walk = run_walk(walk_list, tmp_path / "out", 4, root, {"pftw_stat": "no", "pftw_split": split,
                                                          "pftw_algorithm": "drqs"})
    assert walk.returncode == 0, walk.stderr
    assert_same_as_find(walk, listing, with_stat=False)
    assert all(e.size == -1 for e in walk.entries)
    assert walk.stats["bytes"] == 0


def test_du_and_find_totals_agree(walk_list, tmp_path):
    """File count and byte sum equal find's and du's (the skewed tree has no hard links)."""
    root, _ = tree("skewed", **SKEWED)
    walk = run_walk(walk_list, tmp_path / "out", 4, root, {"pftw_stat": "yes"})
    du = subprocess.run(["du", "-s", "-b", root], capture_output=True, text=True, check=True)
    assert walk.stats["bytes"] == int(du.stdout.split()[0])
    files = subprocess.run(["find", root, "-type", "f"], capture_output=True, check=True).stdout
    assert walk.stats["files"] == files.count(b"\n")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 4), (4, 1), (4, 2)])
def test_stop_ends_every_rank_cleanly(algorithm, ranks, threads, walk_list, tmp_path):
    root, listing = tree("skewed", **SKEWED)
    walk = run_walk(walk_list, tmp_path / "out", ranks, root,
                    {"pftw_algorithm": algorithm, "pftw_threads": threads},
                    args=["--stop-after", "2000", "--expect", str(PFTW_STOPPED)], timeout=120)
    # walk_list exits 1 on any rank whose PFTW_Walk did not return PFTW_STOPPED
    assert walk.returncode == 0, walk.stdout + walk.stderr
    assert walk.stats["code"] == PFTW_STOPPED
    assert walk.duplicates() == []
    assert set(walk.paths()) <= set(listing)
    assert 2000 <= len(walk.entries) < len(listing)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_termination_waits_for_a_slow_rank(algorithm, walk_list, tmp_path):
    """Rank 2's visit sleeps 300 us per entry: the others run dry long before it does,
    and the token must not declare the walk over while it still works."""
    root, listing = tree("skewed", entries=20000)
    walk = run_walk(walk_list, tmp_path / "out", 4, root, {"pftw_algorithm": algorithm, "pftw_stat": "yes"},
                    args=["--slow-rank", "2:300"])
    assert walk.returncode == 0, walk.stderr
    assert_same_as_find(walk, listing)
    assert walk.stats["items"][2] > 0


def test_skip_subtree(walk_list, tmp_path):
    root = tmp_path / "t"
    for d in ("keep/skip/deep", "skip/x", "keep/other"):
        (root / d).mkdir(parents=True)
    for f in ("keep/skip/deep/f", "skip/x/g", "keep/other/h", "keep/a"):
        (root / f).write_bytes(b"x")
    walk = run_walk(walk_list, tmp_path / "out", 2, str(root), args=["--skip", "skip"])
    assert walk.returncode == 0, walk.stderr
    expected = {str(root / p).encode() for p in ("", "keep", "keep/skip", "skip", "keep/other", "keep/other/h",
                                                "keep/a")}
    expected = {p.rstrip(b"/") for p in expected}
    assert sorted(walk.paths()) == sorted(expected)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_max_depth_matches_find(depth, walk_list, tmp_path):
    root, _ = tree("skewed", entries=20000)
    listing = find_listing(root, "-maxdepth", str(depth))
    walk = run_walk(walk_list, tmp_path / "out", 3, root, {"pftw_max_depth": depth, "pftw_stat": "yes"})
    assert walk.returncode == 0, walk.stderr
    assert_same_as_find(walk, listing)
    assert max(e.depth for e in walk.entries) == min(depth, max(e.depth for e in walk.entries))


def test_xdev_stays_on_the_root_device(walk_list, tmp_path):
    root = tmp_path / "t"
    (root / "mnt").mkdir(parents=True)
    (root / "before").write_bytes(b"abc")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(root / "mnt")]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (root / "mnt" / "inside").mkdir()
        (root / "mnt" / "inside" / "file").write_bytes(b"x")
        for xdev, tests in (("yes", ["-xdev"]), ("no", [])):
            listing = find_listing(str(root), *tests)
            walk = run_walk(walk_list, tmp_path / f"out{xdev}", 2, str(root),
                            {"pftw_xdev": xdev, "pftw_stat": "yes"})
            assert walk.returncode == 0, walk.stderr
            assert_same_as_find(walk, listing)
        assert (str(root / "mnt" / "inside").encode()) not in find_listing(str(root), "-xdev")
    finally:
        subprocess.run(["umount", str(root / "mnt")], check=True)


def test_a_root_that_is_not_a_directory(walk_list, tmp_path):
    (tmp_path / "file").write_bytes(b"12345")
    os.symlink("file", tmp_path / "link")
    for name, kind, size in (("file", 1, 5), ("link", 3, 4)):
        walk = run_walk(walk_list, tmp_path / "out", 2, str(tmp_path / name), {"pftw_stat": "yes"})
        assert walk.returncode == 0, walk.stderr
        assert [(e.path, e.type, e.size, e.error) for e in walk.entries] == \
            [(str(tmp_path / name).encode(), kind, size, 0)]


def test_a_missing_root_is_an_entry_with_its_error(walk_list, tmp_path):
    walk = run_walk(walk_list, tmp_path / "out", 2, str(tmp_path / "absent"))
    assert walk.returncode == 0
    assert [(e.path, e.error) for e in walk.entries] == [(str(tmp_path / "absent").encode(), 2)]
    assert walk.stats["errors"] == 1


@pytest.mark.parametrize("hint,value", [("pftw_algorithm", "bfs"), ("pftw_threads", "0"), ("pftw_threads", "x"),
                                        ("pftw_split", "half"), ("pftw_stat", "maybe"),
                                        ("pftw_max_depth", "-2")])
def test_bad_hints_are_refused_on_every_rank(hint, value, walk_list, tmp_path):
    walk = run_walk(walk_list, tmp_path / "out", 2, str(tmp_path), {hint: value},
                    args=["--expect", str(PFTW_ERR_INFO)], timeout=60)
    assert walk.returncode == 0, walk.stdout + walk.stderr
    assert walk.entries == []


def test_an_empty_root_is_a_bad_argument(walk_list, tmp_path):
    walk = run_walk(walk_list, tmp_path / "out", 2, "", args=["--expect", str(PFTW_ERR_ARG)], timeout=60)
    assert walk.returncode == 0, walk.stdout + walk.stderr


def test_different_roots_are_not_the_same(walk_list, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    command = ["mpiexec", "-n", "1", walk_list, str(tmp_path / "a"), str(tmp_path / "out"), "--expect",
               str(PFTW_ERR_NOT_SAME), ":", "-n", "1", walk_list, str(tmp_path / "b"), str(tmp_path / "out"),
               "--expect", str(PFTW_ERR_NOT_SAME)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_threads_need_a_threaded_mpi(walk_list, tmp_path):
    walk = run_walk(walk_list, tmp_path / "out", 2, str(tmp_path), {"pftw_threads": 2},
                    args=["--single", "--expect", str(PFTW_ERR_THREAD)], timeout=60)
    assert walk.returncode == 0, walk.stdout + walk.stderr


def test_several_emulated_nodes(walk_list, tmp_path):
    """PA-DRQS and H-DRQS across 2 nodes (PIOX_HOSTNAME): still every entry once."""
    root, listing = tree("skewed", entries=20000)
    for algorithm in ("pa-drqs", "h-drqs"):
        walk = run_walk(walk_list, tmp_path / "out", 4, root, {"pftw_algorithm": algorithm, "pftw_stat": "yes"},
                        launcher=_hosts_launcher(["nodeA", "nodeB"]))
        assert walk.returncode == 0, walk.stderr
        assert_same_as_find(walk, listing)


def _hosts_launcher(hosts):
    class Launcher(MpiRun):
        def __call__(self, n, argv, **kw):
            return super().__call__(n, argv, hosts=hosts, **kw)
    return Launcher()


def test_unreadable_directories_as_an_unprivileged_user(walk_list, tmp_path):
    """As nobody: a directory without read permission is visited once with EACCES and
    not descended; in one without search permission the names are listed but cannot
    be stat'ed. find(1) sees the same entries (it names the failing ones on stderr)."""
    if not shutil.which("setpriv"):
        pytest.skip("setpriv is missing")
    base = Path(tempfile.mkdtemp(prefix="pftw-nobody-", dir="/tmp"))
    try:
        os.chmod(base, 0o777)  # tmp_path's parents are closed to nobody
        root = base / "t"
        for d in ("d000", "d644/sub", "ok/deeper"):
            (root / d).mkdir(parents=True)
        for f in ("d000/f", "d644/g", "ok/h", "ok/deeper/i"):
            (root / f).write_bytes(b"data")
        os.chmod(root / "d000", 0o000)
        os.chmod(root / "d644", 0o644)
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        result = subprocess.run(as_nobody + ["mpiexec", "-n", "2", walk_list, str(root), str(base / "out"),
                                             "pftw_stat=yes"], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
        walk = read_walk(base / "out", result)
        find = subprocess.run(as_nobody + ["find", str(root), "-printf", r"%p\0"], capture_output=True)
        listed = set(find.stdout.split(b"\0")[:-1])
        complained = {line.split("'")[1].encode() for line in find.stderr.decode().splitlines() if "'" in line}
        assert walk.duplicates() == []
        assert listed <= set(walk.paths()) <= listed | complained
        errors = {e.path: e.error for e in walk.entries if e.error}
        assert errors.get(str(root / "d000").encode()) == errno.EACCES
        assert errors.get(str(root / "d644" / "sub").encode()) == errno.EACCES
        assert str(root / "d000" / "f").encode() not in walk.paths()
        assert walk.stats["errors"] == len(errors)
    finally:
        os.chmod(base / "t" / "d000", 0o755)
        os.chmod(base / "t" / "d644", 0o755)
        shutil.rmtree(base)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_files_deleted_during_the_walk(algorithm, walk_list, tmp_path):
    """A third of the files vanish while 4 ranks walk: nothing is visited twice or
    invented, every survivor is visited, and only vanished files carry an error."""
    sys.path.insert(0, str(REPO / "test" / "fixtures" / "trees"))
    from deleter import start_deleter
    from make_tree import make_tree
    root = str(tmp_path / "tree")
    make_tree("skewed", root, entries=15000)
    before = find_listing(root)
    deleter = start_deleter(root, fraction=0.3, seed=5, pause=0.001, batch=10)
    walk = run_walk(walk_list, tmp_path / "out", 4, root, {"pftw_algorithm": algorithm, "pftw_stat": "yes",
                                                          "pftw_threads": 2})
    deleted = {os.fsencode(path) for path in deleter.finish(stop=True)}
    assert walk.returncode == 0, walk.stderr
    assert deleted, "the deleter deleted nothing"
    assert walk.duplicates() == []
    visited = set(walk.paths())
    assert visited <= set(before)
    assert set(before) - deleted <= visited
    failed = {e.path for e in walk.entries if e.error}
    assert failed <= deleted
    assert all(e.error == errno.ENOENT for e in walk.entries if e.error)
    assert walk.stats["errors"] == len(failed)
    print(f"deleted {len(deleted)}: {len(deleted - visited)} never seen, {len(failed)} seen but gone")
