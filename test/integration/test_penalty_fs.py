"""Tests of the remote-read penalty FUSE fixture (test/fixtures/penalty_fs) itself.

bench/locality_e2e trusts piox-penalty-fs to hand back the backing files' bytes
unchanged, to charge each read to the host of the process that reads (PIOX_HOSTNAME)
by the map's placement, and to refuse a map it cannot follow. These tests check that
through the real mount, by its counters (user.piox_penalty.stats), never by timing.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, _unmount

PENALTY_FS = BUILD / "test" / "fixtures" / "penalty_fs" / "piox-penalty-fs"
STATS = "user.piox_penalty.stats"
NS_PER_BYTE = 2
SIZE = 5 * 65536 + 777  # five chunks and a short one


def chunk_lines(mount):
    return (f"file {mount}/data.bin\n"
            "0 65536 nodeA\n"
            "65536 65536 nodeB,nodeC\n"
            "131072 65536 *\n"
            "196608 65536 -\n"
            "262144 65536 NODEA.cluster.example\n"  # matched as libdli matches hosts
            "327680 777 nodeC\n")


@pytest.fixture
def penalty_mount(tmp_path):
    """A mount over a backing directory with a mapped file (data.bin), an unmapped one
    (other.bin) and a map listing data.bin under the mount's path."""
    if not PENALTY_FS.exists():
        pytest.fail(f"{PENALTY_FS} is missing: run `make check` in {BUILD}")
    backing, mount = tmp_path / "backing", tmp_path / "mnt"
    backing.mkdir()
    mount.mkdir()
    (backing / "data.bin").write_bytes(os.urandom(SIZE))
    (backing / "other.bin").write_bytes(os.urandom(100000))
    mapping = tmp_path / "data.map"
    mapping.write_text("dli-map 1\n" + chunk_lines(mount.resolve()))
    subprocess.run([PENALTY_FS, backing, mount, f"--map={mapping}",
                    f"--ns-per-byte={NS_PER_BYTE}"], check=True, timeout=30)
    try:
        yield {"backing": backing, "mount": mount}
    finally:
        _unmount(mount)


def read_as(host, path, offset, length):
    """pread by a process presented as `host` (no PIOX_HOSTNAME when None)."""
    env = {k: v for k, v in os.environ.items() if k != "PIOX_HOSTNAME"}
    if host:
        env["PIOX_HOSTNAME"] = host
    code = ("import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "sys.stdout.buffer.write(os.pread(fd, int(sys.argv[3]), int(sys.argv[2])))")
    return subprocess.run([sys.executable, "-c", code, str(path), str(offset), str(length)],
                          env=env, capture_output=True, check=True, timeout=60).stdout


def counters(mount):
    """{host: {requests, local, remote, unmapped, delay_ns, capped}}."""
    text = os.getxattr(mount, STATS).decode()
    lines = text.splitlines()
    assert lines[0] == f"model ns_per_byte={NS_PER_BYTE} max_delay_ms=100", text
    found = {}
    for line in lines[1:]:
        words = line.split()
        assert words[0] == "host", text
        found[words[1]] = {k: int(v) for k, v in (w.split("=") for w in words[2:])}
    return found


@pytest.mark.parametrize("host", ["nodeA", "nodeB", None])
def test_bytes_read_through_the_mount_are_the_backing_files(penalty_mount, host):
    mount, backing = penalty_mount["mount"], penalty_mount["backing"]
    for name in ("data.bin", "other.bin"):
        data = (backing / name).read_bytes()
        for offset, length in ((0, len(data)), (1, 65536), (65535, 131074), (300000, 10 ** 6),
                               (len(data) - 3, 100), (len(data) + 5, 10)):
            assert read_as(host, mount / name, offset, length) == data[offset:offset + length]
    assert (mount / "data.bin").read_bytes() == (backing / "data.bin").read_bytes()


def test_reads_are_charged_to_the_readers_host(penalty_mount):
    mount = penalty_mount["mount"]
    read_as("nodeA", mount / "data.bin", 0, SIZE)       # every chunk once
    read_as("nodeC", mount / "data.bin", 65536 + 100, 1000)
    read_as("nodeB", mount / "other.bin", 0, 100000)    # not in the map
    read_as("nodeB", mount / "data.bin", SIZE - 10, 50)  # stops at the end of the file
    found = counters(mount)
    # nodeA holds chunks 0 and 4 (NODEA.cluster.example), and * is every host's.
    assert found["nodeA"]["local"] == 3 * 65536
    assert found["nodeA"]["remote"] == 2 * 65536 + 777
    assert found["nodeC"]["local"] == 1000 and found["nodeC"]["remote"] == 0
    assert found["nodeB"]["unmapped"] == 100000
    assert found["nodeB"]["remote"] == 10 and found["nodeB"]["local"] == 0
    for host, bill in found.items():
        assert bill["delay_ns"] == NS_PER_BYTE * bill["remote"], host
        assert bill["capped"] == 0


def test_the_delay_per_request_is_capped(tmp_path):
    backing, mount = tmp_path / "backing", tmp_path / "mnt"
    backing.mkdir()
    mount.mkdir()
    (backing / "data.bin").write_bytes(os.urandom(SIZE))
    mapping = tmp_path / "data.map"
    mapping.write_text("dli-map 1\n" + chunk_lines(mount.resolve()))
    subprocess.run([PENALTY_FS, backing, mount, f"--map={mapping}", "--ns-per-byte=1000",
                    "--max-delay-ms=0.5"], check=True, timeout=30)
    try:
        read_as("nodeB", mount / "data.bin", 0, 65536)
        text = os.getxattr(mount, STATS).decode()
    finally:
        _unmount(mount)
    # 65536 remote bytes would be 65.5 ms; the cap is 0.5 ms per request.
    assert "model ns_per_byte=1000 max_delay_ms=0.5" in text
    line = next(line for line in text.splitlines() if line.startswith("host nodeB "))
    bill = dict(word.split("=") for word in line.split()[2:])
    assert int(bill["remote"]) == 65536
    assert int(bill["delay_ns"]) == 500000 * int(bill["capped"]) and int(bill["capped"]) >= 1


@pytest.mark.parametrize("text, message", [
    ("file /x\n0 10 nodeA\n", ':1: the first line must be "dli-map 1"'),
    ("dli-map 1\nfile /x\n0 10 nodeA\n20 10 nodeB\n", ":4: chunk at 20 does not start where"),
    ("dli-map 1\n0 10 nodeA\n", ':2: a chunk before any "file" line'),
    ("dli-map 2\n", ":1: version 2 is not known"),
])
def test_a_bad_map_is_refused_before_mounting(tmp_path, text, message):
    mount = tmp_path / "mnt"
    mount.mkdir()
    mapping = tmp_path / "bad.map"
    mapping.write_text(text)
    result = subprocess.run([PENALTY_FS, tmp_path, mount, f"--map={mapping}"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.startswith(f"piox-penalty-fs: {mapping}{message}"), result.stderr
    assert not os.path.ismount(mount)


@pytest.mark.parametrize("options, message", [
    ([], "usage: "),
    (["--map=/nonexistent/x.map"], "/nonexistent/x.map: No such file or directory"),
    (["--map=MAP", "--ns-per-byte=-1"], "must be finite numbers >= 0"),
])
def test_missing_or_wrong_options_are_refused(tmp_path, options, message):
    mount = tmp_path / "mnt"
    mount.mkdir()
    (tmp_path / "ok.map").write_text("dli-map 1\n")
    options = [o.replace("MAP", str(tmp_path / "ok.map")) for o in options]
    result = subprocess.run([PENALTY_FS, tmp_path, mount, *options], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode != 0 and message in result.stderr, result.stderr
    assert not os.path.ismount(mount)


def test_a_map_listing_nothing_on_the_mount_is_named(tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    mapping = tmp_path / "elsewhere.map"
    mapping.write_text("dli-map 1\nfile /elsewhere/data.bin\n0 10 nodeA\n")
    result = subprocess.run([PENALTY_FS, tmp_path, mount, f"--map={mapping}"],
                            capture_output=True, text=True, timeout=30)
    try:
        assert result.returncode == 0
        assert f"lists no file under {Path(mount).resolve()}" in result.stderr
    finally:
        _unmount(mount)
