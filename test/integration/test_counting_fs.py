"""Tests of the counting FUSE fixture (test/fixtures/counting_fs) itself.

Parallel loading's tests and bench/loading (issue 17) judge piox by how many
operations a job sends the shared file system. They trust piox-counting-fs to pass
bytes, names and links through unchanged, to count each operation under its name,
and to let no kernel cache absorb a process's lookups (each node of a cluster has
its own caches). These tests check that through the real mount, by its counters,
never by timing.
"""
import os
import subprocess
import sys

import pytest

from conftest import BUILD, _unmount

COUNTING_FS = BUILD / "test" / "fixtures" / "counting_fs" / "piox-counting-fs"
STATS = "user.piox_count.stats"
OPS = ("getattr", "access", "readlink", "opendir", "readdir", "open", "read", "other")


def mount_counting(backing, mount, *options):
    if not COUNTING_FS.exists():
        pytest.fail(f"{COUNTING_FS} is missing: run `make check` in {BUILD}")
    subprocess.run([COUNTING_FS, backing, mount, *options], check=True, timeout=30)


@pytest.fixture
def counting_mount(tmp_path):
    """A mount over a backing directory with a file, a symlink to it and a directory
    of two files."""
    backing, mount = tmp_path / "backing", tmp_path / "mnt"
    (backing / "dir").mkdir(parents=True)
    mount.mkdir()
    (backing / "data.bin").write_bytes(os.urandom(300000))
    (backing / "link").symlink_to("data.bin")
    for name in ("x", "y"):
        (backing / "dir" / name).write_text(name)
    mount_counting(backing, mount)
    try:
        yield {"backing": backing, "mount": mount}
    finally:
        _unmount(mount)


def counts(mount):
    text = os.getxattr(mount, STATS).decode()
    fields = dict(word.split("=") for word in text.split())
    assert tuple(fields) == OPS, text
    return {name: int(value) for name, value in fields.items()}


def delta(mount, action):
    """The counters' rise while `action` runs."""
    before = counts(mount)
    action()
    after = counts(mount)
    return {name: after[name] - before[name] for name in OPS}


def run(*argv):
    subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=60)


def test_bytes_names_and_links_pass_through(counting_mount):
    backing, mount = counting_mount["backing"], counting_mount["mount"]
    assert (mount / "data.bin").read_bytes() == (backing / "data.bin").read_bytes()
    assert os.readlink(mount / "link") == "data.bin"
    assert (mount / "link").read_bytes() == (backing / "data.bin").read_bytes()
    assert sorted(os.listdir(mount / "dir")) == ["x", "y"]
    assert sorted(os.listdir(mount)) == ["data.bin", "dir", "link"]


def test_reading_the_counters_is_not_counted(counting_mount):
    mount = counting_mount["mount"]
    assert delta(mount, lambda: counts(mount)) == dict.fromkeys(OPS, 0)


def test_each_operation_is_counted_under_its_name(counting_mount):
    mount = counting_mount["mount"]
    read = delta(mount, lambda: run("cat", mount / "data.bin"))
    assert read["open"] == 1 and read["read"] >= 1 and read["getattr"] >= 1, read
    assert read["readlink"] == read["opendir"] == read["readdir"] == 0, read
    listed = delta(mount, lambda: run("ls", mount / "dir"))
    assert listed["opendir"] == 1 and listed["readdir"] >= 1, listed
    assert listed["open"] == listed["read"] == listed["readlink"] == 0, listed
    link = delta(mount, lambda: run("readlink", mount / "link"))
    assert link["readlink"] == 1 and link["open"] == 0, link
    checked = delta(mount, lambda: os.access(mount / "dir" / "x", os.R_OK))
    assert checked["access"] + checked["getattr"] >= 1, checked
    missing = delta(mount, lambda: os.path.exists(mount / "dir" / "nothing"))
    assert missing["getattr"] >= 1 and missing["open"] == 0, missing


def test_no_kernel_cache_absorbs_lookups(counting_mount):
    """Every process's stat reaches the fixture: four separate processes' stats of one
    path cost exactly four times one's, and four reads of a file four opens and at
    least four reads (no page cache kept across opens)."""
    mount = counting_mount["mount"]
    path = mount / "dir" / "x"
    one = delta(mount, lambda: run("stat", path))["getattr"]
    four = delta(mount, lambda: [run("stat", path) for _ in range(4)])["getattr"]
    assert one >= 2 and four == 4 * one, (one, four)
    reads = delta(mount, lambda: [run("cat", mount / "data.bin") for _ in range(4)])
    assert reads["open"] == 4 and reads["read"] >= 4, reads


def test_latency_changes_no_count(tmp_path):
    backing, mount = tmp_path / "backing", tmp_path / "mnt"
    backing.mkdir()
    mount.mkdir()
    (backing / "f").write_text("f")
    mount_counting(backing, mount, "--latency-us=2000")
    try:
        stat = delta(mount, lambda: run("stat", mount / "f"))
        assert stat["getattr"] >= 1 and sum(stat.values()) == stat["getattr"], stat
        assert (mount / "f").read_text() == "f"
    finally:
        _unmount(mount)


@pytest.mark.parametrize("option", ["--latency-us=-1", "--latency-us=99999999999"])
def test_a_bad_latency_is_refused_before_mounting(tmp_path, option):
    backing, mount = tmp_path / "backing", tmp_path / "mnt"
    backing.mkdir()
    mount.mkdir()
    done = subprocess.run([COUNTING_FS, backing, mount, option], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2, done
    assert "--latency-us must be 0 to 10000000" in done.stderr and "usage:" in done.stderr
    assert not os.path.ismount(mount)
