"""No MPI-IO routine slips past piox: every MPI_File_* routine the MPI library's
headers declare is either wrapped by libpiox (pmpi_shim/routines.def, and the
symbol is exported) or listed, with its reason, in pmpi_shim/pass_through.def.

The routines come from the headers as the compiler sees them (`mpicc -E` of a file
that includes mpi.h), so a new MPI version's routine, such as another _c form,
fails this test until someone decides what piox does with it.
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import OPENMPI_LIB, PIOX_LIB

REPO = Path(__file__).resolve().parents[2]
DECLARED = re.compile(r"\b(MPI_File_\w+)\s*\(")
PASS_THROUGH = re.compile(r'^PIOX_PASS_THROUGH\((\w+),\s*"', re.MULTILINE)
# A routine whose name says it moves data, a file pointer or atomicity.
DATA_OR_POINTER = re.compile(r"read|write|seek|position|atomicity")


def declared_routines(mpicc, tmp_path, include_first=None):
    source = tmp_path / "headers.c"
    source.write_text("#include <mpi.h>\n")
    extra = ["-I", str(include_first)] if include_first else []
    out = subprocess.run([mpicc, *extra, "-E", str(source)], capture_output=True, text=True,
                         check=True).stdout
    return set(DECLARED.findall(out))


def exported_routines(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " T MPI_" in line}


def pass_through():
    text = (REPO / "pmpi_shim" / "pass_through.def").read_text()
    return {"MPI_" + name for name in PASS_THROUGH.findall(text)}


def check(mpicc, library, tmp_path, include_first=None):
    declared = declared_routines(mpicc, tmp_path, include_first)
    assert len(declared) > 50, f"found only {sorted(declared)} in the headers"
    wrapped = exported_routines(library)
    passed_on = pass_through()
    missing = declared - wrapped - passed_on
    assert not missing, (f"routines neither wrapped nor in pass_through.def: {sorted(missing)}")
    # A pass-through entry the headers do not declare is fine (the other MPI may);
    # one that piox also wraps is a contradiction.
    assert not (passed_on & wrapped), sorted(passed_on & wrapped)
    # Whatever moves data or a pointer, or changes atomicity, is wrapped.
    assert not {r for r in passed_on & declared if DATA_OR_POINTER.search(r)}
    return declared, wrapped


def test_mpich_headers(tmp_path):
    declared, wrapped = check("mpicc.mpich", PIOX_LIB, tmp_path)
    # MPICH 4 declares the large-count forms: they are wrapped, not passed on.
    assert "MPI_File_write_shared_c" in declared and "MPI_File_write_shared_c" in wrapped


def test_open_mpi_headers(tmp_path):
    if not shutil.which("mpicc.openmpi") or not OPENMPI_LIB.exists():
        pytest.skip("Open MPI or its libpiox build is not installed")
    check("mpicc.openmpi", OPENMPI_LIB, tmp_path)


def test_the_guard_can_fail(tmp_path):
    """A routine a newer mpi.h would declare, that nobody handles, fails the check."""
    headers = tmp_path / "newer"
    headers.mkdir()
    (headers / "mpi.h").write_text(
        "#include_next <mpi.h>\nint MPI_File_write_sideways(MPI_File fh, const void *buf);\n")
    with pytest.raises(AssertionError, match="MPI_File_write_sideways"):
        check("mpicc.mpich", PIOX_LIB, tmp_path, include_first=headers)
