"""Locality remapping of HDFS files reached through a local mount (issue 16: section 3's
HDFS part, section 5's NameNode fallback). share_reader, an unmodified reader, opens a
local path under dli_hdfs_mount=LOCALPREFIX=HDFSURL with piox_locality=remap; libdli
asks the NameNode where the blocks of the HDFS name are, and piox shows the ranks
(presented as hosts nodeA-nodeC) the blocks in an order that makes their shares local.

No HDFS runs here: the NameNode is the stand-in of test/fixtures/webhdfs, serving
Hadoop-shaped recordings on 127.0.0.1 (24 blocks of 64 KiB and a short one, 1 and 2
replicas), and the local directory holds files with the bytes those recordings
describe, as a fuse-dfs mount would. A NameNode that never answers (the @stall route)
or is not there (a refused port), and a malformed setting, leave the file read as it
is, with a PIOX_DEBUG line saying why, within dli_timeout_ms.
"""
import json
import os
import sys
import time
import urllib.parse

import pytest

import locality_shares as shares
import test_dli_hdfs as hdfs_tests
import test_locality_remap as remap
from conftest import REPO
from test_dli_hdfs import namenode, nn  # noqa: F401 (the stand-in NameNode's fixtures)

sys.path.insert(0, str(REPO / "test" / "fixtures" / "webhdfs"))
import webhdfs_server as recorded  # noqa: E402

RECORDINGS = {1: "block_locations_remap_1_replica.http", 2: "block_locations_remap_2_replicas.http"}
REMOTE_DIRS = {1: "1 replica", 2: "2 replicas"}  # under /remap on the NameNode (routes.json)
QUICK = 30  # seconds: a bound on a job that must not wait for a silent NameNode


def recorded_blocks(replicas):
    """[(offset, length)] and [[short host names]] of a remap recording."""
    body = json.loads(recorded.load_recording(RECORDINGS[replicas]).body)
    blocks = body["BlockLocations"]["BlockLocation"]
    return ([(b["offset"], b["length"]) for b in blocks],
            [[h.split(".")[0] for h in b["hosts"]] for b in blocks])


@pytest.fixture(scope="module")
def mount(tmp_path_factory):
    """A local directory standing for the HDFS directory /remap: a file per recording,
    with as many bytes as its blocks, at the same relative path."""
    local = tmp_path_factory.mktemp("remap-hdfs") / "hdfs"
    files = {}
    for replicas in RECORDINGS:
        chunks, hosts = recorded_blocks(replicas)
        data = os.urandom(sum(length for _, length in chunks))
        path = local / REMOTE_DIRS[replicas] / "data.bin"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        files[replicas] = {"path": path, "data": data, "chunks": chunks, "hosts": hosts}
    return {"local": local, "files": files}


def mount_hint(local, url):
    return f"dli_hdfs_mount={local}={url}"


def block_requests(server):
    return [(r.path, r.raw_path, r.op) for r in server.take_requests()]


def timed_reader(mpirun, program, path, outdir, nranks, args=(), env=None):
    """remap.run_reader, and how many seconds the job took."""
    start = time.monotonic()
    run = remap.run_reader(mpirun, program, path, outdir, nranks, args, env)
    return run, time.monotonic() - start


@pytest.mark.parametrize("replicas", [1, 2])
@pytest.mark.parametrize("nranks", [3, 6])
def test_shares_become_local_through_the_mount(mpirun, program, nn, mount, tmp_path, replicas, nranks):
    mapped = mount["files"][replicas]
    out = tmp_path / "out"
    run = remap.run_reader(mpirun, program, mapped["path"], out, nranks,
                           ["piox_locality=remap", mount_hint(mount["local"], nn.name("/remap"))])
    # Rank 0 asked once, under the HDFS name (its space percent-encoded).
    remote = f"/remap/{REMOTE_DIRS[replicas]}/data.bin"
    assert block_requests(nn) == [(remote, urllib.parse.quote(remote), "GETFILEBLOCKLOCATIONS")]
    assert run["remap"] is not None, run["off"]
    local = remap.assert_remapped(run, mapped, out, nranks)
    plain = sum(shares.local_bytes(mapped["chunks"], mapped["hosts"], range(len(mapped["chunks"])),
                                   remap.rank_hosts(nranks)))
    size = len(mapped["data"])
    assert run["remap"][2] == pytest.approx(100 * plain / size, abs=0.05)
    best = shares.best_local_bytes(mapped["chunks"], mapped["hosts"], remap.rank_hosts(nranks))
    assert plain < local <= best
    assert local >= 0.95 * best, (local, best)


def test_hdfs_names_and_the_environment(mpirun, program, nn, mount, tmp_path):
    """hdfs://NN:RPCPORT/ asks WebHDFS on dli_webhdfs_port; PIOX_DLI_HDFS_MOUNT and
    PIOX_LOCALITY set it all for the job."""
    mapped = mount["files"][2]
    settings = {"PIOX_LOCALITY": "remap", "PIOX_DLI_WEBHDFS_PORT": str(nn.port),
                "PIOX_DLI_HDFS_MOUNT": f"{mount['local']}/=hdfs://127.0.0.1:8020/remap/"}
    run = remap.run_reader(mpirun, program, mapped["path"], tmp_path / "out", 3, env=settings)
    assert [r[0] for r in block_requests(nn)] == ["/remap/2 replicas/data.bin"]
    remap.assert_remapped(run, mapped, tmp_path / "out", 3)


def test_a_sibling_of_the_prefix_is_not_under_it(mpirun, program, nn, mount, tmp_path):
    """LOCALPREFIX matches whole components: LOCALPREFIXx is a local file (posix)."""
    sibling = mount["local"].with_name(mount["local"].name + "x") / "data.bin"
    sibling.parent.mkdir(exist_ok=True)
    data = mount["files"][1]["data"]
    sibling.write_bytes(data)
    out = tmp_path / "out"
    run = remap.run_reader(mpirun, program, sibling, out, 3,
                           ["piox_locality=remap", mount_hint(mount["local"], nn.name("/remap"))])
    assert block_requests(nn) == []
    remap.assert_not_remapped(run, {"data": data}, out, 3, "no permutation")


def assert_read_as_it_is(run, mapped, outdir, nranks, *fragments):
    """Remapping off because libdli failed, with each fragment in the debug line; every
    rank read its plain share."""
    remap.assert_not_remapped(run, mapped, outdir, nranks, "libdli cannot describe its storage")
    line = next(why for why in run["off"] if "libdli cannot describe" in why)
    for fragment in fragments:
        assert fragment in line, line
    return line


def test_a_silent_namenode_costs_dli_timeout_ms(mpirun, program, nn, mount, tmp_path):
    """The NameNode takes the request and never answers (@stall, /slow/stall.bin): the
    open gives up after dli_timeout_ms and the program reads the file as it is."""
    local = tmp_path / "slow-mount"
    local.mkdir()
    mapped = {"data": mount["files"][1]["data"]}
    (local / "stall.bin").write_bytes(mapped["data"])
    out = tmp_path / "out"
    run, seconds = timed_reader(mpirun, program, local / "stall.bin", out, 3,
                                ["piox_locality=remap", "dli_timeout_ms=500",
                                 mount_hint(local, nn.name("/slow"))])
    assert [r[0] for r in block_requests(nn)] == ["/slow/stall.bin"]
    line = assert_read_as_it_is(run, mapped, out, 3, f"{local}/stall.bin (dli_hdfs_mount",
                                f"http://127.0.0.1:{nn.port}/webhdfs/v1/slow/stall.bin", "no answer within 500 ms")
    assert seconds < QUICK, (seconds, line)  # the stand-in would stall for 60 s


def test_a_namenode_not_there_is_found_out_at_once(mpirun, program, mount, tmp_path):
    """Nothing listens on the port: refused at once, long before dli_timeout_ms."""
    port = recorded.refused_port()
    mapped = mount["files"][1]
    out = tmp_path / "out"
    run, seconds = timed_reader(mpirun, program, mapped["path"], out, 3,
                                ["piox_locality=remap", "dli_timeout_ms=60000",
                                 mount_hint(mount["local"], f"webhdfs://127.0.0.1:{port}/remap")])
    assert_read_as_it_is(run, mapped, out, 3, f"127.0.0.1:{port}/webhdfs/v1/remap/1%20replica/data.bin")
    assert seconds < QUICK


def test_a_local_file_of_another_size_is_not_the_hdfs_one(mpirun, program, nn, mount, tmp_path):
    """A prefix that leads to another file: its blocks would misplace every byte, so
    libdli refuses it (the sizes differ) and the file is read as it is."""
    local = tmp_path / "elsewhere"
    (local / "1 replica").mkdir(parents=True)
    mapped = {"data": mount["files"][1]["data"][:200000]}
    (local / "1 replica" / "data.bin").write_bytes(mapped["data"])
    out = tmp_path / "out"
    run = remap.run_reader(mpirun, program, local / "1 replica" / "data.bin", out, 3,
                           ["piox_locality=remap", mount_hint(local, nn.name("/remap"))])
    assert len(block_requests(nn)) == 1
    assert_read_as_it_is(run, mapped, out, 3, "the local file has 200000 bytes, "
                         f"{nn.name('/remap/1 replica/data.bin')} has {len(mount['files'][1]['data'])}")


@pytest.mark.parametrize("value, why", [
    ("relative=hdfs://nn/", "is not an absolute path"),
    ("{local}", "expected LOCALPREFIX=HDFSURL"),
    ("{local}=hdfs://nn:99999/", "is not a port"),
    ("/=hdfs://nn/", "every local path would be taken for HDFS"),
])
def test_a_malformed_mount_leaves_reading_alone(mpirun, program, nn, mount, tmp_path, value, why):
    mapped = mount["files"][1]
    value = value.format(local=mount["local"])
    out = tmp_path / "out"
    run = remap.run_reader(mpirun, program, mapped["path"], out, 3,
                           ["piox_locality=remap", f"dli_hdfs_mount={value}"])
    assert block_requests(nn) == []
    assert_read_as_it_is(run, mapped, out, 3, f"DLI_map_chunks_comm: dli_hdfs_mount={value}: ", why)


def test_a_directory_under_the_mount_lists_local_names(mpirun, program, nn):
    """DLI_map_Dprocess_Dchunks through the mount (dli_query, no piox): LISTSTATUS of the
    HDFS directory, each file's blocks, the files named under the local directory as
    given (bytes past ASCII and a space kept), each asked once under its HDFS name."""
    result = mpirun(1, [program("dli_query"), "--dir", "--init", "--hint",
                        f"dli_hdfs_mount=/mnt/hdfs={nn.name('/')}", "/mnt/hdfs/x/../odd/", "dn1"],
                    piox=False, env={"HADOOP_USER_NAME": ""}, timeout=QUICK)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout + result.stderr
    names = [hdfs_tests.utf8(f["all"]["file"]) for f in lines[0]["files"]]
    assert names == ["/mnt/hdfs/x/../odd/" + n for n in sorted(["part 2.bin", "données-ü.bin", "100%?#.bin"], key=str.encode)]
    table = hdfs_tests.recorded_table("block_locations_four_blocks.http")
    assert all(hdfs_tests.chunks_of(f["all"]) == [(o, n, h) for o, n, h in table] for f in lines[0]["files"])
    assert [r.raw_path for r in nn.take_requests()] == [
        "/odd", "/odd/100%25%3F%23.bin", "/odd/donn%C3%A9es-%C3%BC.bin", "/odd/part%202.bin"]
