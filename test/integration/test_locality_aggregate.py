"""Locality for unmodified programs, semantics-preserving (issue 16, part 2):
piox_locality=aggregate makes collective reads piox's two-phase reads by ranks on the
hosts that store the chunks. share_reader (the DL-MPI reader) runs with ranks on three
presented hosts: the bytes are the file's own, byte for byte, in every collective form,
in one piece or three, through a view, with a last short chunk; every byte of the file
is read once, by its chunk's reader, and the readers' local bytes are what the
scheduler's assignment promised; nonblocking ones too, several in flight at once.
Independent reads stay with the library, and so do views piox cannot map. A reader
whose reads fail fails the reads of the ranks that asked it, and only those. On the
Ceph cluster, in pools of 1 and 2 replicas, the same holds.
(Generated views and memory types go through aggregate reads in test_differential.py,
configuration piox-aggregate.)"""
import os

import pytest

import locality_shares as shares
import romio
from conftest import PEER_BUILD, describe

COLLECTIVE_FORMS = ["at_all", "at_all_split", "pointer_all", "iat_all", "ipointer_all"]


@pytest.fixture
def mapped_file(tmp_path):
    return shares.mapped_file(tmp_path)


def read_all(mpirun, program, mapped, outdir, nranks, args, env=None):
    run = shares.run_reader(mpirun, program, mapped["path"], outdir, nranks,
                            args + ["piox_locality=aggregate"], env=env)
    assert b"".join(shares.read_shares(outdir, nranks)) == mapped["data"]
    return run


def assert_read_once_where_promised(run, mapped, nranks):
    """Every byte read once by the ranks as readers, each chunk by a rank (so the
    for-others bytes are the rest of each share), and the readers' local bytes are
    the scheduler's promise."""
    counted = [shares.aggregate_bytes(run["stats"][r]) for r in range(nranks)]
    size = len(mapped["data"])
    assert sum(local + remote for local, remote, _ in counted) == size
    assert run["aggregate"] is not None
    local = sum(c[0] for c in counted)
    assert run["aggregate"][1] == pytest.approx(100 * local / size, abs=0.05)
    return local


@pytest.mark.parametrize("how", COLLECTIVE_FORMS)
@pytest.mark.parametrize("pieces", [1, 3])
def test_collective_reads_are_the_files_bytes(mpirun, program, mapped_file, tmp_path, how, pieces):
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 6,
                   ["--how", how, "--pieces", pieces, f"dli_map_file={mapped_file['map']}"])
    assert_read_once_where_promised(run, mapped_file, 6)


@pytest.mark.parametrize("how", COLLECTIVE_FORMS)
def test_large_count_forms_too(mpirun, program, mapped_file, tmp_path, how):
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 6,
                   ["--how", how, "--large-count", f"dli_map_file={mapped_file['map']}"])
    assert_read_once_where_promised(run, mapped_file, 6)
    assert all("_c=" in run["stats_lines"][r] for r in range(6))  # the _c routines were called


def test_through_a_view(mpirun, program, mapped_file, tmp_path):
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 3,
                   ["--how", "at_all", "--view", f"dli_map_file={mapped_file['map']}"])
    assert_read_once_where_promised(run, mapped_file, 3)


@pytest.mark.parametrize("how", ["at_all", "iat_all", "iat_all_many"])
def test_views_piox_cannot_map_are_the_librarys(mpirun, program, mapped_file, tmp_path, how):
    """An "external32" view: a blocking read goes to the library's collective read, a
    nonblocking one becomes each process's own read while the exchange still runs."""
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 3,
                   ["--how", how, "--pieces", 2, "--external32",
                    f"dli_map_file={mapped_file['map']}"])
    assert run["aggregate"] is not None
    assert all(shares.aggregate_bytes(run["stats"][r]) == (0, 0, 0) for r in range(3))
    said = "a collective read piox cannot map exactly (its view, its size or its pieces) goes to the library"
    assert run["stderr"].count(said) == 3, run["stderr"]  # once per rank and file


@pytest.mark.parametrize("pieces", [2, 5])
def test_nonblocking_reads_in_flight_together(mpirun, program, mapped_file, tmp_path, pieces):
    """Every piece's MPI_File_iread_at_all before any MPI_Wait, waited the last one
    first: piox's reads in flight finish in call order whichever the program waits on."""
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 6,
                   ["--how", "iat_all_many", "--pieces", pieces,
                    f"dli_map_file={mapped_file['map']}"])
    assert_read_once_where_promised(run, mapped_file, 6)
    assert all(f"MPI_File_iread_at_all={pieces}" in run["stats_lines"][r] for r in range(6))


@pytest.mark.parametrize("how", ["at", "iat", "pointer"])
def test_other_reads_stay_with_the_library(mpirun, program, mapped_file, tmp_path, how):
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 3,
                   ["--how", how, f"dli_map_file={mapped_file['map']}"])
    assert all(shares.aggregate_bytes(run["stats"][r]) == (0, 0, 0) for r in range(3))


def test_no_chunk_table_no_aggregation(mpirun, program, mapped_file, tmp_path):
    run = read_all(mpirun, program, mapped_file, tmp_path / "out", 3,
                   ["--how", "at_all", f"dli_map_file={tmp_path / 'missing.map'}"])
    assert run["aggregate"] is None
    assert any("libdli cannot describe its storage" in why for why in run["off"]), run["off"]


@pytest.mark.parametrize("replicas", [1, 2])
@pytest.mark.parametrize("nranks", [3, 6])
def test_on_ceph_readers_read_where_chunks_are(mpirun, program, ceph_cluster, locality_ceph_files,
                                               tmp_path, replicas, nranks):
    mapped = locality_ceph_files[replicas]
    run = read_all(mpirun, program, mapped, tmp_path / "out", nranks, ["--how", "at_all"],
                   env={"CEPH_CONF": str(ceph_cluster.conf)})
    local = assert_read_once_where_promised(run, mapped, nranks)
    plain = sum(shares.local_bytes(mapped["chunks"], mapped["hosts"],
                                   range(len(mapped["chunks"])), shares.rank_hosts(nranks)))
    assert local > plain  # the readers do better than each rank reading its own share


@pytest.mark.parametrize("how", ["at_all", "at_all_split"])
def test_a_reader_that_fails_fails_its_askers_only(mpirun, program, tmp_path, how):
    """Rank 1's preads fail (test/peer/eio_pread.c). With every chunk local and the
    shares whole chunks, each rank reads its own share: rank 1's collective read fails
    with an error, the others' succeed with the file's bytes, and nobody waits."""
    failing_pread = romio.build_interposer(PEER_BUILD, romio.INTERPOSER_SOURCE.parent / "eio_pread.c")
    chunk, nranks = 4096, 3
    data = os.urandom(nranks * 8 * chunk)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    out = tmp_path / "out"
    out.mkdir()
    result = mpirun(nranks, [program("share_reader"), path, out, "--how", how,
                             "piox_locality=aggregate"],
                    hosts=list(shares.HOSTS), piox=False,  # preloaded here, before the interposer
                    env={"LD_PRELOAD": f"{mpirun.library}:{failing_pread}",
                         "PIOX_DLI_LIBRARY": mpirun.dli_library, "PIOX_TEST_EIO_RANK": "1",
                         "PIOX_DLI_CHUNK_SIZE": chunk, "PIOX_STATS": "1"})
    assert result.returncode != 0 and " No Errors" not in result.stdout, describe(result)
    run = shares.parse_run(result.stdout, result.stderr, nranks)
    share = len(data) // nranks
    for rank in (0, 2):
        assert run["shares"][rank][2] == share, describe(result)  # bytes read
        assert (out / f"share.{rank}").read_bytes() == data[rank * share:(rank + 1) * share]
    assert run["shares"][1][2] == 0, describe(result)
    assert "read_at_all" in result.stdout + result.stderr and "failed" in result.stdout + result.stderr
