"""Another PMPI tool beside piox: an I/O monitor (Darshan, mpiP, a site's tool)
preloaded after libpiox sees every byte that piox moves for the program, and still
reaches its own MPI_Finalize, where such tools write their logs. Preloaded before
libpiox, it hides the program's calls from piox, and piox says so at start-up.

counting_tool.c is such a monitor: it counts the bytes of every MPI-IO write routine
and writes its totals to a file from its MPI_Finalize. tool_client.c writes through
write_shared, iwrite_shared, write_ordered and its split form, and in atomic mode a
strided write that piox would otherwise sieve on its own descriptor.
"""
import re
from pathlib import Path

import pytest

from conftest import BUILD, OPENMPI_BUILD, PIOX_LIB, OPENMPI_LIB

WARNING = "MPI routines piox wraps"
RANKS = 4


def tool_library(build):
    path = build / "test" / "programs" / ".libs" / "libcounting_tool.so"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make check` in {build}")
    return path


def tool_env(path, libraries):
    return {"LD_PRELOAD": ":".join(str(lib) for lib in libraries),
            "COUNTING_TOOL_OUT": f"{path}.tool"}


def by_rank(prefix):
    """{rank: bytes} from the files PREFIX.<rank> the programs write (bytes first)."""
    return {rank: int(Path(f"{prefix}.{rank}").read_text().split()[0])
            for rank in range(RANKS) if Path(f"{prefix}.{rank}").exists()}


def check_counted(result, path):
    assert result.returncode == 0 and " No Errors" in result.stdout, result.stdout + result.stderr
    client, tool = by_rank(f"{path}.client"), by_rank(f"{path}.tool")
    assert sorted(client) == list(range(RANKS)), client
    # The tool's MPI_Finalize ran on every rank, and it saw every byte each wrote.
    assert tool == client, f"tool counted {tool}, the program wrote {client}"
    assert sum(tool.values()) == path.stat().st_size


def test_tool_alone_counts_every_byte(tmp_path, mpirun, program):
    """The control: without piox the tool sees the program's own calls."""
    path = tmp_path / "log"
    result = mpirun(RANKS, [program("tool_client"), path], piox=False,
                    env=tool_env(path, [tool_library(BUILD)]))
    check_counted(result, path)


def test_tool_after_piox_sees_every_byte(any_dir, mpirun, program):
    path = any_dir / "log"
    result = mpirun(RANKS, [program("tool_client"), path], piox=False,
                    env={**tool_env(path, [PIOX_LIB, tool_library(BUILD)]), "PIOX_STATS": "1"})
    check_counted(result, path)
    assert WARNING not in result.stderr
    # piox still counts what it did itself.
    assert result.stderr.count("MPI_File_write_shared=10") == RANKS, result.stderr
    assert result.stderr.count("MPI_File_write_at=1") == RANKS, result.stderr


def test_tool_after_piox_under_open_mpi(tmp_path, openmpi_run, openmpi_program):
    path = tmp_path / "log"
    result = openmpi_run(RANKS, [openmpi_program("tool_client"), path], piox=False,
                         env=tool_env(path, [OPENMPI_LIB, tool_library(OPENMPI_BUILD)]))
    check_counted(result, path)


def test_tool_before_piox_is_reported(tmp_path, mpirun, program):
    """One line, from rank 0, naming the tool. (The program itself may then fail: the
    tool sends write_ordered_begin past piox, and its end call to piox.)"""
    path = tmp_path / "log"
    result = mpirun(RANKS, [program("tool_client"), path], piox=False,
                    env=tool_env(path, [tool_library(BUILD), PIOX_LIB]))
    assert result.stderr.count(WARNING) == 1, result.stderr
    assert re.search(r"^piox\[-1\]: \d+ MPI routines piox wraps \(MPI_Finalize, MPI_File_\w+, "
                     r"MPI_File_\w+, \.\.\.\) resolve to \S*libcounting_tool\.so before libpiox",
                     result.stderr, re.MULTILINE), result.stderr
