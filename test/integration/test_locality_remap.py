"""Locality remapping for unmodified programs (issue 16, part 1): share_reader, the
DL-MPI paper's reader (each rank reads size / nprocs bytes at rank * (size / nprocs)),
run with ranks on three presented hosts. With piox_locality=remap the shares, laid
end to end, are the file's chunks, each exactly once (checked byte by byte), through
every read form; the local bytes piox counts are those the permutation gives; the
placement's best is reached. Remapping stays off (the shares are the file itself)
for files opened for writing, files with another view, storage libdli cannot
describe, and files outside PIOX_LOCALITY_PATHS. On the real Ceph cluster, in pools
of one and two replicas, at 3 and 6 ranks, the local fraction is reported with
remapping and without."""
import os
import random

import pytest

import locality_shares as shares

HOSTS = ["nodeA", "nodeB", "nodeC"]
CHUNK = 1000
READ_FORMS = ["at", "at_all", "iat", "at_all_split", "pointer", "pointer_all", "vector"]


def rank_hosts(nranks):
    """The host of each rank as MpiRun(hosts=HOSTS) places them: consecutive groups."""
    out = []
    for i, host in enumerate(HOSTS):
        out += [host] * (nranks // len(HOSTS) + (1 if i < nranks % len(HOSTS) else 0))
    return out


@pytest.fixture
def mapped_file(tmp_path):
    """A file of 24 chunks and a last short one, with a map (DLI_map.5) placing each
    chunk on one host, drawn with a fixed seed: nodeB holds fewer than its share."""
    draw = random.Random(5)
    size = 24 * CHUNK + 500
    data = os.urandom(size)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    chunks = [(o, min(CHUNK, size - o)) for o in range(0, size, CHUNK)]
    hosts = [[draw.choice(HOSTS)] for _ in chunks]
    mapping = tmp_path / "data.map"
    mapping.write_text(f"dli-map 1\nfile {path}\n" +
                       "".join(f"{o} {n} {h[0]}\n" for (o, n), h in zip(chunks, hosts)))
    return {"path": path, "data": data, "chunks": chunks, "hosts": hosts, "map": mapping}


def run_reader(mpirun, program, path, outdir, nranks, args=(), env=None):
    outdir.mkdir(exist_ok=True)
    result = mpirun(nranks, [program("share_reader"), path, outdir, *args], hosts=HOSTS,
                    env={"PIOX_DEBUG": "1", "PIOX_STATS": "1", **(env or {})}, check=True)
    assert " No Errors" in result.stdout, result.stdout + result.stderr
    return shares.parse_run(result.stdout, result.stderr, nranks)


def assert_remapped(run, mapped, outdir, nranks):
    """The shares are the chunks in some order; every rank read its whole share; piox's
    counts of local bytes are the permutation's; returns the local bytes."""
    size = len(mapped["data"])
    for rank, (offset, length) in enumerate(shares.share_ranges(size, nranks)):
        assert run["shares"][rank][:3] == (offset, length, length), run["shares"][rank]
    logical = b"".join(shares.read_shares(outdir, nranks))
    order = shares.chunk_order(mapped["data"], mapped["chunks"], logical)
    assert order != list(range(len(order))), "remapping left the file as it is"
    local = shares.local_bytes(mapped["chunks"], mapped["hosts"], order, rank_hosts(nranks))
    counted = [shares.stats_bytes(run["stats"][r]) for r in range(nranks)]
    assert [c[0] for c in counted] == local
    assert [sum(c) for c in counted] == [n for _, n in shares.share_ranges(size, nranks)]
    assert run["remap"][1] == pytest.approx(100 * sum(local) / size, abs=0.05)
    return sum(local)


def assert_not_remapped(run, mapped, outdir, nranks, why):
    assert b"".join(shares.read_shares(outdir, nranks)) == mapped["data"]
    assert run["remap"] is None
    assert any(why in line for line in run["off"]), run["off"]


@pytest.mark.parametrize("how", READ_FORMS)
@pytest.mark.parametrize("pieces", [1, 3])
def test_every_read_form_sees_a_permutation(mpirun, program, mapped_file, tmp_path, how, pieces):
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 6,
                     ["--how", how, "--pieces", pieces, "piox_locality=remap",
                      f"dli_map_file={mapped_file['map']}"])
    assert_remapped(run, mapped_file, out, 6)
    if how.startswith("pointer"):  # the individual pointer moved past what was read
        for offset, length, read, position in run["shares"].values():
            assert position == offset + length


@pytest.mark.parametrize("nranks", [3, 6])
def test_the_placement_allows_and_remapping_reaches(mpirun, program, mapped_file, tmp_path, nranks):
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, nranks,
                     ["piox_locality=remap", f"dli_map_file={mapped_file['map']}"])
    local = assert_remapped(run, mapped_file, out, nranks)
    size = len(mapped_file["data"])
    plain = shares.local_bytes(mapped_file["chunks"], mapped_file["hosts"],
                               range(len(mapped_file["chunks"])), rank_hosts(nranks))
    assert run["remap"][2] == pytest.approx(100 * sum(plain) / size, abs=0.05)
    best = shares.best_local_bytes(mapped_file["chunks"], mapped_file["hosts"], rank_hosts(nranks))
    assert sum(plain) < local <= best
    assert local >= 0.95 * best, (local, best)


def test_environment_and_paths(mpirun, program, mapped_file, tmp_path):
    settings = {"PIOX_LOCALITY": "remap", "PIOX_DLI_MAP": str(mapped_file["map"])}
    inside = run_reader(mpirun, program, mapped_file["path"], tmp_path / "in", 3,
                        env={**settings, "PIOX_LOCALITY_PATHS": f"/elsewhere:{tmp_path}"})
    assert_remapped(inside, mapped_file, tmp_path / "in", 3)
    outside = run_reader(mpirun, program, mapped_file["path"], tmp_path / "out", 3,
                         env={**settings, "PIOX_LOCALITY_PATHS": f"{tmp_path}-not"})
    assert_not_remapped(outside, mapped_file, tmp_path / "out", 3, "not under PIOX_LOCALITY_PATHS")


@pytest.mark.parametrize("case, args, why", [
    ("writable", ["--rdwr"], "opened for writing"),
    ("view", ["--view"], None),
    ("no-placement", [], "no permutation"),
])
def test_remapping_stays_off(mpirun, program, mapped_file, tmp_path, case, args, why):
    hints = ["piox_locality=remap"]
    if case != "no-placement":  # else libdli's posix provider: every chunk everywhere
        hints.append(f"dli_map_file={mapped_file['map']}")
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 3, args + hints)
    if why is None:  # remapped at open, but reads through another view are not
        assert b"".join(shares.read_shares(out, 3)) == mapped_file["data"]
        assert all(shares.stats_bytes(run["stats"][r]) == (0, 0) for r in range(3))
    else:
        assert_not_remapped(run, mapped_file, out, 3, why)


def test_a_map_that_cannot_be_read_leaves_reading_alone(mpirun, program, mapped_file, tmp_path):
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 3,
                     ["piox_locality=remap", f"dli_map_file={tmp_path / 'missing.map'}"])
    assert_not_remapped(run, mapped_file, out, 3, "libdli cannot describe its storage")


# ---- on the real Ceph cluster (OSDs on the CRUSH hosts nodeA-nodeC) -----------------
SMALL = {"stripe_unit": 65536, "stripe_count": 1, "object_size": 65536}  # an object per chunk


@pytest.fixture(scope="module")
def ceph_files(ceph_cluster):
    """{replicas: mapped file} for pools of 1 and 2 replicas: 24 chunks of 64 KiB and
    a short one, placed by CRUSH."""
    from dli_ceph_expect import expected_chunks, set_layout
    base = ceph_cluster.mount / "locality-remap"
    base.mkdir()
    made = {}
    for replicas in (1, 2):
        directory = ceph_cluster.add_data_pool(f"remap_{replicas}", replicas, base / f"r{replicas}")
        path = directory / "data.bin"
        set_layout(path, **SMALL)
        data = os.urandom(24 * 65536 + 1000)
        path.write_bytes(data)
        table = expected_chunks(ceph_cluster, path)
        made[replicas] = {"path": path, "data": data, "chunks": [(o, n) for o, n, _ in table],
                          "hosts": [hosts for _, _, hosts in table]}
    return made


@pytest.mark.parametrize("replicas", [1, 2])
@pytest.mark.parametrize("nranks", [3, 6])
def test_on_ceph_shares_become_local(mpirun, program, ceph_cluster, ceph_files, tmp_path,
                                     replicas, nranks):
    mapped = ceph_files[replicas]
    assert all(len(h) == replicas for h in mapped["hosts"])
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped["path"], out, nranks, ["piox_locality=remap"],
                     env={"CEPH_CONF": str(ceph_cluster.conf)})
    size = len(mapped["data"])
    plain = sum(shares.local_bytes(mapped["chunks"], mapped["hosts"],
                                   range(len(mapped["chunks"])), rank_hosts(nranks)))
    assert run["remap"] is not None, run["off"]  # CRUSH left some share remote
    assert run["remap"][2] == pytest.approx(100 * plain / size, abs=0.05)
    local = assert_remapped(run, mapped, out, nranks)
    assert local > plain
    assert local <= shares.best_local_bytes(mapped["chunks"], mapped["hosts"], rank_hosts(nranks))


def test_on_ceph_a_writable_file_is_read_as_it_is(mpirun, program, ceph_cluster, ceph_files,
                                                  tmp_path):
    mapped = ceph_files[1]
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped["path"], out, 3, ["--rdwr", "piox_locality=remap"],
                     env={"CEPH_CONF": str(ceph_cluster.conf)})
    assert_not_remapped(run, mapped, out, 3, "opened for writing")
