"""The Ceph fixture (test/fixtures/ceph): the cluster is what the locality tests
assume (three OSDs on three CRUSH hosts, an active MDS, a CephFS mount), files are
stored where `osd map` says, libcephfs' locality calls agree with it, and stopping
leaves nothing behind, also when a test fails inside the cluster's `with`."""
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ceph_cluster as ceph
import daemons

FIXTURE = Path(ceph.__file__).resolve().parent
FILE_EXTENTS_C = FIXTURE / "file_extents.c"

# A small layout gives many objects from little data. Two stripe units per object
# and two objects per stripe, so that the object of an offset is not simply
# offset / object_size: the checks below must follow the striping for real.
LAYOUT = {"stripe_unit": 65536, "stripe_count": 2, "object_size": 131072}
FILE_SIZE = 17 * 65536 + 1000  # 18 stripe units, the last one partial


def object_index(offset, stripe_unit, stripe_count, object_size):
    """The index of the object holding a file offset (CephFS file striping)."""
    block = offset // stripe_unit
    stripe, position = divmod(block, stripe_count)
    object_set = stripe // (object_size // stripe_unit)
    return object_set * stripe_count + position


def object_name(inode, index):
    return f"{inode:x}.{index:08x}"


@pytest.fixture(scope="module")
def striped_file(ceph_cluster):
    """A file written through the ceph-fuse mount with LAYOUT: (path, its bytes)."""
    path = ceph_cluster.mount / "striped"
    path.touch()
    layout = " ".join(f"{key}={value}" for key, value in LAYOUT.items())
    os.setxattr(path, "ceph.file.layout", layout.encode())  # only while the file is empty
    data = os.urandom(FILE_SIZE)
    with open(path, "wb") as f:
        f.write(data)
        os.fsync(f.fileno())
    return path, data


def file_objects(path):
    """{object name: [file offsets of its stripe units]} for a file of LAYOUT."""
    inode = os.stat(path).st_ino
    objects = {}
    for offset in range(0, os.stat(path).st_size, LAYOUT["stripe_unit"]):
        name = object_name(inode, object_index(offset, **LAYOUT))
        objects.setdefault(name, []).append(offset)
    return objects


def test_status_shows_three_osds_up_and_in_and_an_active_mds(ceph_cluster):
    status = ceph_cluster.status()
    osdmap = status["osdmap"]
    assert (osdmap["num_osds"], osdmap["num_up_osds"], osdmap["num_in_osds"]) == (3, 3, 3)
    ranks = status["fsmap"]["by_rank"]
    assert [rank["status"] for rank in ranks] == ["up:active"]


def test_each_osd_sits_under_its_configured_crush_host(ceph_cluster):
    assert ceph_cluster.osd_hosts == {0: "nodeA", 1: "nodeB", 2: "nodeC"}
    for osd, host in ceph_cluster.osd_hosts.items():
        location = ceph_cluster.mon_command("osd find", id=osd)["crush_location"]
        assert location == {"host": host, "root": "default"}
    tree = {node["name"]: node for node in ceph_cluster.mon_command("osd tree")["nodes"]}
    assert sorted(tree["default"]["children"]) == sorted(tree[h]["id"] for h in ("nodeA", "nodeB", "nodeC"))
    for osd, host in ceph_cluster.osd_hosts.items():
        assert tree[host]["children"] == [osd]


def test_a_file_reads_back_through_the_mount_and_from_its_objects(ceph_cluster, striped_file):
    path, data = striped_file
    assert path.read_bytes() == data
    # The same bytes, reassembled from the RADOS objects the layout says hold them.
    unit = LAYOUT["stripe_unit"]
    objects = file_objects(path)
    assert len(objects) == 10
    rebuilt = bytearray(len(data))
    for name, offsets in objects.items():
        content = ceph_cluster.read_object(ceph_cluster.data_pool, name)
        for slot, offset in enumerate(offsets):
            piece = content[slot * unit:(slot + 1) * unit][:len(data) - offset]
            rebuilt[offset:offset + len(piece)] = piece
    assert bytes(rebuilt) == data


def test_every_object_has_three_replicas_on_three_hosts(ceph_cluster, striped_file):
    path, _ = striped_file
    for name in file_objects(path):
        acting = ceph_cluster.osd_map(ceph_cluster.data_pool, name)
        hosts = {ceph_cluster.osd_hosts[osd] for osd in acting}
        assert len(acting) == 3 and hosts == {"nodeA", "nodeB", "nodeC"}, (name, acting)


@pytest.fixture(scope="module")
def file_extents(tmp_path_factory):
    """file_extents.c compiled against libcephfs."""
    binary = tmp_path_factory.mktemp("ceph-programs") / "file_extents"
    subprocess.run(["cc", "-Wall", "-Werror", "-D_FILE_OFFSET_BITS=64", "-o", str(binary),
                    str(FILE_EXTENTS_C), "-lcephfs"], check=True, timeout=120)
    return binary


def test_libcephfs_extent_osds_and_crush_hosts_agree_with_osd_map(ceph_cluster, striped_file,
                                                                  file_extents):
    path, data = striped_file
    result = subprocess.run([str(file_extents), str(ceph_cluster.conf), "/" + path.name],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    inode = os.stat(path).st_ino
    unit = LAYOUT["stripe_unit"]
    expected_offset = 0
    for line in result.stdout.splitlines():
        offset, length, osds, hosts = line.split()
        offset, length = int(offset), int(length)
        osds = [int(osd) for osd in osds.split(",")]
        # One line per stripe unit, in order, each running to the unit's end.
        assert (offset, length) == (expected_offset, unit), line
        name = object_name(inode, object_index(offset, **LAYOUT))
        assert osds == ceph_cluster.osd_map(ceph_cluster.data_pool, name), (line, name)
        assert hosts.split(",") == [ceph_cluster.osd_hosts[osd] for osd in osds], line
        expected_offset += length
    assert expected_offset >= len(data) > expected_offset - unit


def leftovers(workdir):
    """What a stopped cluster must not leave: processes naming its directory, mounts
    in it, the directory itself."""
    workdir = str(workdir)
    processes = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if workdir in cmdline:
            processes.append((int(pid), cmdline.replace("\0", " ")))
    with open("/proc/mounts") as f:
        mounts = [line for line in f if workdir in line]
    return processes, mounts, os.path.exists(workdir)


def assert_gone(workdir, pids):
    assert pids, "the cluster had no processes to begin with"
    assert leftovers(workdir) == ([], [], False)
    assert not [pid for pid in pids if daemons.is_alive(pid)]


def test_a_failure_inside_the_cluster_leaves_nothing_running(tmp_path):
    if ceph.missing_requirements():
        pytest.skip(ceph.missing_requirements())
    workdir = tmp_path / "failing"
    with pytest.raises(RuntimeError, match="a test failed here"):
        with ceph.CephCluster(workdir) as cluster:
            pids = daemons.cluster_pids(workdir)
            # A file left open keeps the mount busy, as a failing test would.
            held_open = os.open(cluster.mount / "open-at-failure", os.O_WRONLY | os.O_CREAT)
            os.write(held_open, b"unflushed")
            raise RuntimeError("a test failed here")
    assert_gone(workdir, pids)
    with contextlib.suppress(OSError):  # its file system is gone
        os.close(held_open)


def test_the_command_line_stops_a_cluster_whose_starter_is_gone(tmp_path):
    if ceph.missing_requirements():
        pytest.skip(ceph.missing_requirements())
    workdir = tmp_path / "cli"
    script = [sys.executable, str(FIXTURE / "ceph_cluster.py")]
    started = subprocess.run(script + ["start", str(workdir)], capture_output=True, text=True,
                             timeout=120)
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["conf", str(workdir / "ceph.conf"),
                                      "mount", str(workdir / "mnt")]
    pids = daemons.cluster_pids(workdir)
    assert len(pids) == 6  # mon, 3 OSDs, MDS, ceph-fuse: nobody holds them but the pid files
    for _ in range(2):  # stop is idempotent
        stopped = subprocess.run(script + ["stop", str(workdir)], capture_output=True,
                                 text=True, timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        assert_gone(workdir, pids)
