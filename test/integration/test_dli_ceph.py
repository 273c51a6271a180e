"""libdli's ceph provider against a real cluster (the ceph_cluster fixture: OSDs 0-2 on
the CRUSH hosts nodeA-nodeC). Its chunk tables agree with the monitors' `osd map` for
files of several layouts, in the file system's 3-replica pool and in a 2-replica pool
(where hosts really hold different chunks); the six DLI_* functions, run by ranks that
present themselves as different hosts, agree with those tables for ceph:// names and
mount paths, with and without DLI_Init/DLI_Load; directories; names with odd bytes;
mounts of subdirectories; and every refusal has its DLI_ERR_* code."""
import contextlib
import json
import os
import subprocess

import pytest

import ceph_cluster as ceph
import daemons

from dli_ceph_expect import expected_chunks, set_layout
from dli_expect import assert_answer, assert_map, local_to, printed, run_query

HOSTS = ["nodeA", "nodeB", "nodeC"]
RANK_HOSTS = HOSTS + ["elsewhere"]  # one rank per CRUSH host, and one on a host holding nothing
SMALL = {"stripe_unit": 65536, "stripe_count": 1, "object_size": 65536}  # an object per stripe unit
TWO_REPLICAS = "dli_two_replicas"
BASE = "dli-ceph"                  # this module's files, apart from other tests' on the cluster
SPREAD = "fewer replicas"           # the directory whose files go to the 2-replica pool
ODD = "naïve file\nline.dat"
DLI_ERR = {"ARG": 1, "INFO": 2, "NOENT": 3}


def write(path, size, **layout):
    if layout:
        set_layout(path, **layout)
    path.write_bytes(os.urandom(size))
    return path


@pytest.fixture(scope="module")
def files(ceph_cluster):
    """{key: path on the mount}, every layout the provider must follow."""
    mount = ceph_cluster.mount / BASE
    mount.mkdir()
    ceph_cluster.add_data_pool(TWO_REPLICAS, 2, mount / SPREAD)
    made = {
        "default": write(mount / "default", 2 * 4194304 + 123),  # 4 MiB stripe units, the last one short
        # Three objects a stripe, two stripe units deep: chunks of one object interleave.
        "striped": write(mount / "striped", 20 * 65536 + 1000, stripe_unit=65536, stripe_count=3,
                         object_size=131072),
        "empty": write(mount / "empty", 0),
        "spread": write(mount / SPREAD / "a", 24 * 65536, **SMALL),
        "small": write(mount / SPREAD / "b", 1000),
        "odd": write(mount / SPREAD / ODD, 3 * 65536 + 5, **SMALL),
    }
    (mount / SPREAD / "sub").mkdir()      # neither a subdirectory...
    (mount / SPREAD / "link").symlink_to("a")  # ...nor a link is a file of the directory
    return made


@pytest.fixture(scope="module")
def expected(ceph_cluster, files):
    return {key: expected_chunks(ceph_cluster, path) for key, path in files.items()}


@pytest.fixture(scope="module")
def query(ceph_cluster, program):
    """query(args, ranks=RANK_HOSTS, **settings): dli_query as one rank per host, with
    CEPH_CONF set for all; returns (exit code, {rank: answer})."""
    def run(args, hosts=RANK_HOSTS, **settings):
        ranks = [{"PIOX_HOSTNAME": host, "CEPH_CONF": ceph_cluster.conf, **settings} for host in hosts]
        return run_query(program("dli_query"), args, ranks)
    return run


def ceph_url(path, cluster, fs=""):
    return f"ceph://{fs}/{path.relative_to(cluster.mount)}"


def assert_every_rank(answers, name, chunks):
    for rank, answer in answers.items():
        assert_answer(answer, name, chunks, HOSTS, RANK_HOSTS[rank])


def assert_error(answers, code, *words):
    for answer in answers.values():
        assert answer["error"] == code, answer
        assert all(word in answer["message"] for word in words), (answer, words)


def test_the_two_replica_pool_makes_hosts_differ(expected):
    # Otherwise every answer below would be "all local" and could not fail.
    for key in ("spread", "odd"):
        assert all(len(hosts) == 2 for _, _, hosts in expected[key])
    assert all(len(local_to(expected["spread"], host)) < 24 for host in HOSTS)
    assert all(len(hosts) == 3 for key in ("default", "striped") for _, _, hosts in expected[key])


@pytest.mark.parametrize("key", ["default", "striped", "empty", "spread", "small", "odd"])
@pytest.mark.parametrize("form", ["mount", "url"])
def test_chunk_tables_and_the_six_functions_agree_with_osd_map(ceph_cluster, files, expected, query,
                                                               key, form):
    name = str(files[key]) if form == "mount" else ceph_url(files[key], ceph_cluster)
    code, answers = query([name] + HOSTS)
    assert code == 0
    assert_every_rank(answers, name, expected[key])


def test_the_named_file_system_and_a_loaded_table(ceph_cluster, files, expected, query):
    name = ceph_url(files["striped"], ceph_cluster, fs=ceph_cluster.fs_name)
    code, answers = query(["--init", "--load", name] + HOSTS)
    assert code == 0
    assert_every_rank(answers, name, expected["striped"])


def test_with_dli_load_only_rank_0_asks_the_cluster(ceph_cluster, files, expected, program):
    # Ranks 1-3 have no usable conf: they answer only if rank 0's table reached them.
    name = ceph_url(files["spread"], ceph_cluster)
    ranks = [{"PIOX_HOSTNAME": host, "CEPH_CONF": ceph_cluster.conf if rank == 0 else "/nonexistent.conf"}
             for rank, host in enumerate(RANK_HOSTS)]
    code, answers = run_query(program("dli_query"), ["--init", "--load", name] + HOSTS, ranks)
    assert code == 0
    assert_every_rank(answers, name, expected["spread"])
    code, answers = run_query(program("dli_query"), ["--init", name] + HOSTS, ranks)
    assert code == 3
    assert_answer(answers[0], name, expected["spread"], HOSTS, "nodeA")
    assert_error({r: answers[r] for r in (1, 2, 3)}, DLI_ERR["INFO"], "CEPH_CONF=/nonexistent.conf")


@pytest.mark.parametrize("form", ["mount", "url"])
def test_a_directory_maps_its_regular_files_in_name_order(ceph_cluster, files, expected, query, form):
    directory = files["spread"].parent
    name = str(directory) if form == "mount" else ceph_url(directory, ceph_cluster)
    code, answers = query(["--dir", name] + HOSTS)
    assert code == 0
    keys = ["spread", "small", "odd"]  # a, b, naïve...: bytewise order; not sub/, not link
    for answer in answers.values():
        assert answer["directory"] == name
        assert len(answer["files"]) == len(keys)
        for chunk_map, key in zip(answer["files"], keys):
            assert_map(chunk_map, f"{name}/{files[key].name}", expected[key], HOSTS)


def test_a_symbolic_link_and_a_relative_path_into_the_mount(ceph_cluster, files, expected, query, tmp_path):
    link = tmp_path / "link to a file"
    link.symlink_to(files["spread"])
    code, answers = query([link] + HOSTS, hosts=HOSTS)
    assert code == 0
    for answer, host in zip(answers.values(), HOSTS):
        assert_answer(answer, str(link), expected["spread"], HOSTS, host)
    relative = os.path.relpath(files["odd"])
    code, answers = query([relative] + HOSTS, hosts=HOSTS)
    assert code == 0
    for answer, host in zip(answers.values(), HOSTS):
        assert_answer(answer, relative, expected["odd"], HOSTS, host)


def test_1024_stripe_units_of_a_64_mib_file(ceph_cluster, files, query):
    path = ceph_cluster.mount / BASE / "sixty-four"
    set_layout(path, stripe_unit=65536, stripe_count=1, object_size=4194304)
    os.truncate(path, 64 << 20)  # sparse: placement needs no data
    chunks = expected_chunks(ceph_cluster, path)
    assert len(chunks) == 1024
    code, answers = query(["--init", "--load", path] + HOSTS, hosts=["nodeB"])
    assert code == 0
    assert_answer(answers[0], str(path), chunks, HOSTS, "nodeB")


def mds_sessions(cluster):
    """The ids of the clients that have a session with the MDS."""
    listed = subprocess.run(["ceph", "-c", str(cluster.conf), "tell", f"mds.{ceph.MDS_ID}", "session", "ls",
                             "--format", "json"], capture_output=True, text=True, timeout=60, check=True)
    return sorted(session["id"] for session in json.loads(listed.stdout))


def test_every_rank_closes_its_session_before_it_exits(ceph_cluster, files, query):
    # A client that dies mounted keeps its capabilities until the MDS times it out,
    # stalling other clients' writes to the files it asked about.
    before = mds_sessions(ceph_cluster)
    code, _ = query([files["small"]] + HOSTS)
    assert code == 0
    assert mds_sessions(ceph_cluster) == before


def test_missing_files_and_directories_are_noent(ceph_cluster, files, query):
    missing = files["spread"].parent / "missing"
    for name in (str(missing), ceph_url(missing, ceph_cluster), "ceph://nosuchfs/x"):
        code, answers = query([name], hosts=HOSTS[:1])
        assert code == 3
        assert_error(answers, DLI_ERR["NOENT"], name if "nosuchfs" not in name else "nosuchfs")
        code, answers = query(["--dir", name], hosts=HOSTS[:1])
        assert_error(answers, DLI_ERR["NOENT"])


def test_a_directory_as_a_file_a_file_as_a_directory_and_bad_names(ceph_cluster, files, query):
    directory = files["spread"].parent
    for name in (str(directory), ceph_url(directory, ceph_cluster)):
        assert_error(query([name], hosts=HOSTS[:1])[1], DLI_ERR["ARG"], "a directory, not a file")
    for name in (str(files["small"]), ceph_url(files["small"], ceph_cluster)):
        assert_error(query(["--dir", name], hosts=HOSTS[:1])[1], DLI_ERR["ARG"], "not a directory")
    for name in ("ceph://bad fs/x", "ceph://"):
        assert_error(query([name], hosts=HOSTS[:1])[1], DLI_ERR["ARG"], name)


def test_a_conf_that_cannot_be_read_is_a_settings_error(ceph_cluster, files, query):
    name = ceph_url(files["small"], ceph_cluster)
    code, answers = query(["--init", "--hint", "dli_ceph_conf=/nonexistent/ceph.conf", name], hosts=HOSTS[:2])
    assert code == 3
    assert_error(answers, DLI_ERR["INFO"], "dli_ceph_conf=/nonexistent/ceph.conf")


@contextlib.contextmanager
def mounted(point, mount_argv, unmount_command=("fusermount3", "-u")):
    point.mkdir()
    try:
        # Inside the try: a mount that times out may still complete (ceph-fuse's daemon
        # goes on without the command), and must not outlive the test.
        subprocess.run(mount_argv, check=True, capture_output=True, timeout=60)
        yield point
    finally:
        # Retried while a job's files close, then detached (lazily) rather than left.
        daemons.unmount(point, timeout=30.0, patience=10.0, command=unmount_command)


def test_a_bind_mount_of_a_subdirectory_at_a_path_with_a_space(ceph_cluster, files, expected, query, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("bind mounts need root")
    point = tmp_path / "bound here"
    with mounted(point, ["mount", "--bind", str(files["odd"].parent), str(point)], ("umount",)):
        # mountinfo escapes the space (\040) and names the subdirectory in its root field.
        name = str(point / ODD)
        code, answers = query([name] + HOSTS)
        assert code == 0
        assert_every_rank(answers, name, expected["odd"])


def test_a_ceph_fuse_mount_of_a_subdirectory_is_refused_not_misread(ceph_cluster, files, query, tmp_path):
    # ceph-fuse -r does not show in mountinfo: the provider would look for /TWIN at the
    # file system's root, which holds another file of that name, and for /lonely, which
    # is not there.
    twin = f"{BASE}-twin"
    other = ceph_cluster.mount / BASE / "other"
    other.mkdir()
    for path in (ceph_cluster.mount / twin, other / twin, other / "lonely"):
        write(path, 100)
    point = tmp_path / "sub mount"
    argv = ["ceph-fuse", "-c", str(ceph_cluster.conf), "-r", f"/{BASE}/other", str(point)]
    with mounted(point, argv):
        for name in (twin, "lonely"):
            code, answers = query([point / name], hosts=HOSTS[:1])
            assert code == 3
            assert_error(answers, DLI_ERR["ARG"], "another file", "ceph://FS_NAME/PATH")
