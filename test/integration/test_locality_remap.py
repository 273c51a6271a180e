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

import pytest

import locality_shares as shares

READ_FORMS = ["at", "at_all", "iat", "at_all_split", "pointer", "pointer_all", "vector"]
rank_hosts, run_reader = shares.rank_hosts, shares.run_reader


@pytest.fixture
def mapped_file(tmp_path):
    return shares.mapped_file(tmp_path)


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


@pytest.mark.parametrize("how", ["at", "at_all", "iat", "at_all_split", "pointer_all"])
def test_large_count_forms_see_the_permutation(mpirun, program, mapped_file, tmp_path, how):
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 6,
                     ["--how", how, "--large-count", "piox_locality=remap",
                      f"dli_map_file={mapped_file['map']}"])
    assert_remapped(run, mapped_file, out, 6)
    assert all("_c=" in run["stats_lines"][r] for r in range(6))  # the _c routines were called


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
        assert any("a view other than the default one" in line for line in run["off"]), run["off"]
    else:
        assert_not_remapped(run, mapped_file, out, 3, why)


def test_a_map_that_cannot_be_read_leaves_reading_alone(mpirun, program, mapped_file, tmp_path):
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 3,
                     ["piox_locality=remap", f"dli_map_file={tmp_path / 'missing.map'}"])
    assert_not_remapped(run, mapped_file, out, 3, "libdli cannot describe its storage")


# ---- on the real Ceph cluster (OSDs on the CRUSH hosts nodeA-nodeC) -----------------
@pytest.mark.parametrize("replicas", [1, 2])
@pytest.mark.parametrize("nranks", [3, 6])
def test_on_ceph_shares_become_local(mpirun, program, ceph_cluster, locality_ceph_files, tmp_path,
                                     replicas, nranks):
    mapped = locality_ceph_files[replicas]
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


def test_on_ceph_a_writable_file_is_read_as_it_is(mpirun, program, ceph_cluster,
                                                  locality_ceph_files, tmp_path):
    mapped = locality_ceph_files[1]
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped["path"], out, 3, ["--rdwr", "piox_locality=remap"],
                     env={"CEPH_CONF": str(ceph_cluster.conf)})
    assert_not_remapped(run, mapped, out, 3, "opened for writing")


def test_a_map_of_another_size_leaves_reading_alone(mpirun, program, mapped_file, tmp_path):
    with open(mapped_file["path"], "ab") as grown:  # the file changed since its map was made
        grown.write(b"more")
    mapped_file["data"] += b"more"
    out = tmp_path / "out"
    run = run_reader(mpirun, program, mapped_file["path"], out, 3,
                     ["piox_locality=remap", f"dli_map_file={mapped_file['map']}"])
    assert_not_remapped(run, mapped_file, out, 3, "its chunk table describes 24500 bytes, the file has 24504")
