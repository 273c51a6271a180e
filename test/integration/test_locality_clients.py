"""Clients we did not write, under piox_locality=aggregate (issue 16, part 2): their
collective reads become piox's two-phase reads by ranks on the hosts that store the
chunks, and what they read must stay exactly what a plain read gives them.

- The peer suites' programs that read collectively, judged by their own verdict
  (rank 0's " No Errors" after every rank compared what it read). ROMIO's
  (src/mpi/romio/test, test/peer/romio.py): coll_test (read_all through a subarray
  view), split_coll (read_all_begin/end), darray_read (a darray view), aggregation1
  (read_at_all of interleaved objects), aggregation2, noncontig_coll and
  noncontig_coll2 (read_at_all, noncontiguous in memory, in the file or both).
  MPICH's (test/mpi/io, test/peer/mpich_io.py): the nonblocking twins i_coll_test,
  i_darray_read, i_aggregation1, i_aggregation2, i_noncontig_coll, i_noncontig_coll2
  (iread_all, iread_at_all), and rdwrord, i_rdwrord, hindexed_io, i_hindexed_io,
  zero_count. The others read independently, through the shared pointer or an
  external32 view (left to the library), need 4 to 6.5 GiB (large_array, bigtype), or
  print no verdict (big_extents).
- parallel HDF5 in C (libhdf5-mpich) and h5py (python3-h5py-mpi, on Open MPI): a
  dataset written beforehand is read with collective transfers (H5FD_MPIO_COLLECTIVE),
  a hyperslab per rank, every element checked.
- mpi4py (python3-mpi4py, on Open MPI): File.Read_at_all, Read_all, their split and
  nonblocking forms, through the default view and through interleaving views. On
  Open MPI piox leaves nonblocking collective reads to the library.

Ranks sit on three presented hosts (PIOX_HOSTNAME). Placements: a local file in
chunks of an odd size (every chunk local everywhere: each is read by the rank whose
share of the file holds it), and a map (PIOX_DLI_MAP) placing each chunk on one host.
PIOX_STATS shows that piox's readers read the bytes: every file a client read
collectively was read by them, and pieces went to the ranks that asked.
"""
import collections

import numpy
import pytest

import locality_shares as shares
import romio
from conftest import PROGRAM_SOURCES, describe

CHUNK = 1031  # bytes: odd, so that chunk boundaries fall inside the clients' elements
AGGREGATE = {"PIOX_LOCALITY": "aggregate", "PIOX_STATS": "1", "PIOX_DEBUG": "1"}
RUN_TIMEOUT = 180

# The peer suites' collective readers (suite, program): of a file there at open (its
# bytes move between ranks), and the rest, who read back what they wrote in the same
# open of a file they created (the chunk table is then empty: every rank reads its own
# bytes itself), or read with one rank, or with one rank asking for bytes.
PEER_SUITES = {"romio": "romio_tests", "mpich_io": "mpich_io_tests"}  # their fixtures
PEER_EXISTING_FILE = ([("romio", p) for p in ["coll_test", "split_coll", "darray_read",
                                               "aggregation1", "aggregation2"]] +
                      [("mpich_io", p) for p in ["i_coll_test", "i_darray_read",
                                                  "i_aggregation1", "i_aggregation2"]])
PEER_OTHERS = ([("romio", p) for p in ["noncontig_coll", "noncontig_coll2"]] +
               [("mpich_io", p) for p in ["i_noncontig_coll", "i_noncontig_coll2", "rdwrord",
                                           "i_rdwrord", "hindexed_io", "i_hindexed_io",
                                           "zero_count"]])
PEER_CHUNK = {"darray_read": 37, "i_darray_read": 37}  # their file is 200 bytes


def assert_aggregated(printed, nranks, moved=True):
    """Every file the ranks read collectively was read by piox's readers; with `moved`,
    some pieces went to other ranks than their readers. The per-close stats lines,
    [[(local, remote, for others) per rank] per close]."""
    closes = shares.collective_read_closes(printed)
    assert sorted(closes) == list(range(nranks)), (
        f"ranks {sorted(closes)} of {nranks} closed files whose collective reads piox took "
        f"over\n{printed}")
    counts = {len(c) for c in closes.values()}
    assert len(counts) == 1, f"ranks closed unequal numbers of such files\n{printed}"
    opens = [[closes[r][i] for r in range(nranks)] for i in range(counts.pop())]
    assert opens, printed
    for i, per_rank in enumerate(opens):
        assert None not in per_rank, f"file {i} read collectively without aggregation\n{printed}"
        assert sum(local + remote for local, remote, _ in per_rank) > 0, (
            f"file {i}: piox's readers read nothing: its collective reads went to the "
            f"library\n{printed}")
    if moved:
        assert sum(others for per_rank in opens for _, _, others in per_rank) > 0, printed
    return opens


def assert_each_read_aggregated(printed, nranks, reads, left_to_the_library=()):
    """A client that opened the file once for each of `reads` (names), in turn: each
    open passes assert_aggregated on its own, but those in `left_to_the_library`, whose
    readers must have read nothing. The PIOX_STATS lines, rank by rank, in order of
    close."""
    per_rank = collections.defaultdict(list)
    for m in shares.STATS_LINE.finditer(printed):
        per_rank[int(m[1])].append(m)
    assert [len(per_rank[r]) for r in range(nranks)] == [len(reads)] * nranks, printed
    for i, read in enumerate(reads):
        close = [per_rank[r][i] for r in range(nranks)]
        if read in left_to_the_library:
            assert all(shares.aggregate_bytes(m[2]) == (0, 0, 0) for m in close), (read, printed)
        else:  # the read's name heads the text, for the messages
            assert_aggregated("\n".join([read] + [m[0] for m in close]), nranks)


@pytest.fixture(params=["local_chunks", "map"])
def placement(request, tmp_path):
    """How libdli describes a file's storage, as the environment of a run: the local
    file in chunks of CHUNK (every chunk local everywhere), or a map placing each chunk
    on one of the hosts."""
    def env(path):
        if request.param == "local_chunks":
            return {"PIOX_DLI_CHUNK_SIZE": CHUNK}
        return {"PIOX_DLI_MAP": shares.write_map(path, tmp_path / "placement.map", CHUNK)["map"]}
    return env


def run_client(run, nranks, argv, env):
    """A client as nranks ranks over the hosts, in aggregate mode; it must pass."""
    result = run(nranks, argv, hosts=shares.HOSTS, env={**AGGREGATE, **env}, timeout=RUN_TIMEOUT)
    assert romio.passed(result), describe(result)
    return result


def run_peer(request, suite, program, directory, log_dir, env):
    """`program` of a peer suite as the suite runs it, under aggregate mode with its
    ranks over the hosts; passes the suite's verdict; returns what was printed and the
    rank count."""
    tests = request.getfixturevalue(PEER_SUITES[suite])
    nranks = tests.runs[program].nprocs
    result, printed = tests.run(request.getfixturevalue("mpirun"), program, directory, log_dir,
                                hosts=shares.HOSTS[:nranks], env={**AGGREGATE, **env},
                                timeout=RUN_TIMEOUT)
    assert romio.passed(result), describe(result, printed)
    return printed, nranks


@pytest.mark.parametrize("suite,program", PEER_EXISTING_FILE + PEER_OTHERS)
def test_peer_collective_readers_on_local_chunks(request, tmp_path, suite, program):
    data = tmp_path / "data"
    data.mkdir()
    printed, nranks = run_peer(request, suite, program, data, tmp_path / "logs",
                               {"PIOX_DLI_CHUNK_SIZE": PEER_CHUNK.get(program, CHUNK)})
    assert_aggregated(printed, nranks, moved=(suite, program) in PEER_EXISTING_FILE)


@pytest.mark.parametrize("suite,program", PEER_EXISTING_FILE)
def test_peer_collective_readers_on_three_hosts(request, tmp_path, suite, program):
    """A first run without piox leaves the file the program reads; a map then places its
    chunks on the ranks' hosts, and a second run reads it (and writes it again, the same
    bytes) with readers on the hosts that store each chunk."""
    data = tmp_path / "data"
    data.mkdir()
    tests = request.getfixturevalue(PEER_SUITES[suite])
    result, printed = tests.run(request.getfixturevalue("mpirun"), program, data,
                                tmp_path / "first", piox=False, timeout=RUN_TIMEOUT)
    assert romio.passed(result), describe(result, printed)
    nranks = tests.runs[program].nprocs
    mapped = shares.write_map(data / "testfile", tmp_path / "testfile.map",
                              PEER_CHUNK.get(program, CHUNK), shares.HOSTS[:nranks])
    printed, _ = run_peer(request, suite, program, data, tmp_path / "logs",
                          {"PIOX_DLI_MAP": mapped["map"]})
    opens = assert_aggregated(printed, nranks)
    # Every byte of the file read once by the readers, and as much of it where stored
    # as the plan promised (rank 0 also opens the file alone: the last rank's plans
    # are the ones over every rank).
    size = (data / "testfile").stat().st_size
    (promised,) = set(shares.aggregation_plans(printed, nranks - 1))
    for per_rank in opens:
        local = sum(c[0] for c in per_rank)
        assert local + sum(c[1] for c in per_rank) == size, printed
        assert 100 * local / size == pytest.approx(promised, abs=0.05), printed


# Parallel HDF5: a file written beforehand by serial h5py, a dataset of each layout.
HDF5_SHAPE = (128, 200)
HDF5_DATASETS = {"contiguous": None, "chunked": (16, 40)}
HDF5_PATTERNS = ["rows", "blocks", "columns", "all"]
HDF5_RANKS = 4


@pytest.fixture(scope="session")
def hdf5_file(tmp_path_factory):
    import h5py  # serial: no MPI launcher variables in this process
    rows, cols = numpy.meshgrid(*(numpy.arange(n) for n in HDF5_SHAPE), indexing="ij")
    path = tmp_path_factory.mktemp("hdf5_data") / "values.h5"
    with h5py.File(path, "w", locking=False) as f:
        for name, chunks in HDF5_DATASETS.items():
            f.create_dataset(name, data=(rows * 1000 + cols).astype("i4"), chunks=chunks)
    return path


# Each client below reads with every pattern (mpi4py's: every form) in turn in one run,
# each in an open of the file of its own: a launch per run, not per pattern.
@pytest.mark.parametrize("dataset", HDF5_DATASETS)
def test_parallel_hdf5_c_collective_reads(mpirun, hdf5_program, hdf5_file, placement, dataset):
    result = run_client(mpirun, HDF5_RANKS,
                        [hdf5_program("hdf5_reader"), hdf5_file, dataset, ",".join(HDF5_PATTERNS)],
                        placement(hdf5_file))
    assert_each_read_aggregated(result.stderr, HDF5_RANKS, HDF5_PATTERNS)


@pytest.mark.parametrize("dataset", HDF5_DATASETS)
def test_h5py_collective_reads(openmpi_run, hdf5_file, placement, dataset):
    result = run_client(openmpi_run, HDF5_RANKS,
                        ["/usr/bin/python3", PROGRAM_SOURCES / "h5py_reader.py", hdf5_file,
                         dataset, ",".join(HDF5_PATTERNS)],
                        placement(hdf5_file))
    assert_each_read_aggregated(result.stderr, HDF5_RANKS, HDF5_PATTERNS)


# mpi4py: a file of int32 values 0, 1, 2, ... (a multiple of every view's tile).
MPI4PY_INTS = 60000
MPI4PY_RANKS = 3
MPI4PY_VIEWS = ["default", "blocks", "interleaved"]
MPI4PY_AGGREGATED = ["read_at_all", "read_all", "read_at_all_split", "read_all_split"]
# Open MPI 4.1 has no extended generalized requests, which piox's nonblocking
# collective reads are made of: there they stay with the library (README).
MPI4PY_LEFT_TO_THE_LIBRARY = ["iread_at_all", "iread_all"]


@pytest.fixture(scope="session")
def ints_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("mpi4py_data") / "ints.bin"
    numpy.arange(MPI4PY_INTS, dtype="i4").tofile(path)
    return path


@pytest.mark.parametrize("view", MPI4PY_VIEWS)
def test_mpi4py_collective_reads(openmpi_run, ints_file, placement, view):
    forms = MPI4PY_AGGREGATED + MPI4PY_LEFT_TO_THE_LIBRARY
    result = run_client(openmpi_run, MPI4PY_RANKS,
                        ["/usr/bin/python3", PROGRAM_SOURCES / "mpi4py_reads.py", ints_file,
                         ",".join(forms), view],
                        placement(ints_file))
    # The files read with the forms left to the library had aggregate reads, and their
    # readers read nothing.
    assert_each_read_aggregated(result.stderr, MPI4PY_RANKS, forms, MPI4PY_LEFT_TO_THE_LIBRARY)
