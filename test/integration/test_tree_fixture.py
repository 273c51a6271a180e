"""The tree-walk fixtures: test/fixtures/trees (the generator, its cache, the deleter)
and bench/tree_walk_floor.c (the floor walker), checked against GNU find.

The floor is compiled here, as bench/tree_walk compiles it: nothing in bench/ is
built by make. Trees are small (the 500,000-entry ones are the bench's), except
the deep chain, whose 10,000 levels are the point.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import time

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "test" / "fixtures" / "trees"))
from deleter import start_deleter  # noqa: E402
from make_tree import ensure_tree, make_tree, manifest_path  # noqa: E402

TREES = REPO / "_build" / "trees"  # shared with the bench; 0755 all the way, so nobody can reach it
SMALL = {"skewed": {"entries": 3000}, "wide": {"entries": 2001}, "deep": {},
         "adversarial": {}}
NOBODY = 65534


@pytest.fixture(scope="session")
def floor(tmp_path_factory):
    binary = tmp_path_factory.mktemp("floor") / "tree_walk_floor"
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", str(binary),
                    str(REPO / "bench" / "tree_walk_floor.c")], check=True)
    return binary


def find_counts(root):
    """What GNU find sees: entries per type and the sum of st_size (one record per
    entry, NUL-terminated and without the name, so names with newlines count once)."""
    records = subprocess.run(["find", root, "-printf", "%y %s\\0"], capture_output=True,
                             check=True).stdout.split(b"\0")[:-1]
    types = [record.split()[0] for record in records]
    return {"entries": len(records), "directories": types.count(b"d"),
            "files": types.count(b"f"), "symlinks": types.count(b"l"),
            "bytes": sum(int(record.split()[1]) for record in records)}


def run_floor(floor, root, *options, user=None):
    command = [str(floor), *options, str(root)]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + command
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)


def listing(root):
    """(relative bytes path, kind, size or link target) of every entry, sorted."""
    root = os.fsencode(root)
    found, stack = [], [b""]
    while stack:
        relative = stack.pop()
        with os.scandir(os.path.join(root, relative) if relative else root) as entries:
            for entry in entries:
                path = os.path.join(relative, entry.name) if relative else entry.name
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append(path)
                    found.append((path, "d", 0))
                elif stat.S_ISLNK(st.st_mode):
                    found.append((path, "l", os.readlink(entry.path)))
                else:
                    found.append((path, stat.S_IFMT(st.st_mode), st.st_size))
    return sorted(found)


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_manifest_counts_what_find_sees(kind):
    tree = ensure_tree(kind, TREES, **SMALL[kind])
    seen = find_counts(tree["path"])
    assert seen == {key: tree[key] for key in seen}
    assert tree["others"] == seen["entries"] - seen["directories"] - seen["files"] \
        - seen["symlinks"]
    if kind == "deep":
        assert tree["max_depth"] == 10_000  # 20,000-byte paths: past PATH_MAX


def test_same_seed_same_tree_whatever_the_jobs(tmp_path):
    make_tree("skewed", tmp_path / "one", seed=7, jobs=1, entries=6000)
    make_tree("skewed", tmp_path / "two", seed=7, jobs=2, entries=6000)
    make_tree("skewed", tmp_path / "other", seed=8, jobs=2, entries=6000)
    assert listing(tmp_path / "one") == listing(tmp_path / "two")
    assert listing(tmp_path / "one") != listing(tmp_path / "other")


def test_adversarial_tree_has_its_traps():
    tree = ensure_tree("adversarial", TREES)
    root = os.fsencode(tree["path"])
    names = set(os.listdir(os.path.join(root, b"names")))
    assert {b"new\nline", b" leading space", b"-rf", b"\xff\xfe not utf-8", b"x" * 255} <= names
    assert all(os.fsencode(name) in names for name in tree["awkward_names"])
    links = os.path.join(root, b"links")
    assert os.readlink(os.path.join(links, b"loop-a")) == b"loop-b"
    assert os.readlink(os.path.join(links, b"loop-b")) == b"loop-a"
    assert os.readlink(os.path.join(links, b"to-own-directory")) == b"."
    assert not os.path.exists(os.path.join(links, b"dangling"))
    assert stat.S_ISFIFO(os.lstat(os.path.join(root, b"special", b"fifo")).st_mode)
    assert stat.S_ISSOCK(os.lstat(os.path.join(root, b"special", b"socket")).st_mode)
    plain = os.path.join(root, b"plain")
    assert os.lstat(os.path.join(plain, b"target")).st_ino == \
        os.lstat(os.path.join(plain, b"hard-link-to-target")).st_ino
    assert os.listdir(os.path.join(root, b"empty")) == []
    assert stat.S_IMODE(os.lstat(os.path.join(root, b"noread")).st_mode) == 0
    assert stat.S_IMODE(os.lstat(os.path.join(root, b"nosearch")).st_mode) == 0o644


def test_cache_reuses_a_complete_tree_and_remakes_a_half_made_one(tmp_path):
    first = ensure_tree("skewed", tmp_path, entries=500)
    inode = os.stat(first["path"]).st_ino
    again = ensure_tree("skewed", tmp_path, entries=500)
    assert again == first and os.stat(again["path"]).st_ino == inode

    # A tree without its manifest is a half-made one: removed and made again.
    os.unlink(manifest_path(first["path"]))
    with open(os.path.join(first["path"], "stray"), "w"):
        pass
    remade = ensure_tree("skewed", tmp_path, entries=500)
    assert not os.path.exists(os.path.join(remade["path"], "stray"))
    assert find_counts(remade["path"])["entries"] == remade["entries"] == 500

    other = ensure_tree("skewed", tmp_path, entries=400)  # other parameters, another tree
    assert other["path"] != first["path"] and os.path.isdir(first["path"])


@pytest.mark.parametrize("kind", ["skewed", "wide", "deep", "adversarial"])
@pytest.mark.parametrize("options", [("--stat",), ("--no-stat", "--threads", "1"),
                                     ("--stat", "--threads", "3")])
def test_floor_counts_what_find_sees(floor, kind, options):
    tree = ensure_tree(kind, TREES, **SMALL[kind])
    walked = run_floor(floor, tree["path"], *options)
    expected = {key: tree[key] for key in ("entries", "directories", "files", "symlinks",
                                           "others")}
    assert {key: walked[key] for key in expected} == expected
    assert walked["bytes"] == (tree["bytes"] if "--stat" in options else 0)
    assert walked["errors"] == 0


def test_floor_shares_out_a_huge_directory(floor):
    """With stat, a directory of thousands of names is cut into slices of work."""
    tree = ensure_tree("wide", TREES, entries=20_001)
    walked = run_floor(floor, tree["path"], "--stat", "--threads", "2")
    assert (walked["entries"], walked["bytes"]) == (tree["entries"], tree["bytes"])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the tree away and setpriv")
def test_unreadable_directories_stop_a_user_who_is_not_root(floor):
    tree = ensure_tree("adversarial", TREES, owner=NOBODY)
    expected = tree["unprivileged"]
    as_root = run_floor(floor, tree["path"], "--stat")
    assert (as_root["entries"], as_root["errors"]) == (tree["entries"], 0)  # root reads all
    with_stat = run_floor(floor, tree["path"], "--stat", user=NOBODY)
    assert (with_stat["entries"], with_stat["errors"]) == \
        (expected["entries"], expected["errors_with_stat"])
    without_stat = run_floor(floor, tree["path"], "--no-stat", user=NOBODY)
    assert (without_stat["entries"], without_stat["errors"]) == \
        (expected["entries"], expected["errors_without_stat"])


def test_deleter_unlinks_files_while_a_walk_runs(floor, tmp_path):
    tree = ensure_tree("skewed", tmp_path, entries=3000)
    deleter = start_deleter(tree, fraction=0.2, seed=3, pause=0.002, batch=5)
    assert not os.path.exists(manifest_path(tree["path"]))  # the cache will remake it
    walked = run_floor(floor, tree["path"], "--stat")
    deleted = deleter.finish()
    assert len(deleted) == round(0.2 * tree["files"])
    assert not any(os.path.lexists(path) for path in deleted)
    assert tree["entries"] - len(deleted) <= walked["entries"] <= tree["entries"]
    assert find_counts(tree["path"])["entries"] == tree["entries"] - len(deleted)
    assert ensure_tree("skewed", tmp_path, entries=3000)["entries"] == tree["entries"]


def test_deleter_can_be_stopped(tmp_path):
    tree = ensure_tree("wide", tmp_path, entries=2001)
    deleter = start_deleter(tree, fraction=1.0, pause=0.05, batch=1)
    time.sleep(0.1)
    deleted = deleter.finish(stop=True)
    assert 0 < len(deleted) < tree["files"]
    shutil.rmtree(tree["path"])
