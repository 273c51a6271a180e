"""Memory: the test programs run clean under valgrind with libpiox preloaded (no
invalid access, no use of uninitialised memory, no definite leak). Leaks inside the
MPI library's own start-up are suppressed (test/valgrind/mpi.supp)."""
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD
from test_shared_pointer import passed, records_check

SUPPRESSIONS = Path(__file__).resolve().parents[1] / "valgrind" / "mpi.supp"
VALGRIND = ["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite",
            "--error-exitcode=9", f"--suppressions={SUPPRESSIONS}"]

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is missing")


@pytest.mark.parametrize("name", ["errors", "views"])
def test_programs_are_clean(name, tmp_path, mpirun, program):
    passed(mpirun(2, VALGRIND + [program(name), tmp_path], timeout=600))


@pytest.mark.parametrize("mode", ["write_shared", "iwrite_shared", "write_ordered_split"])
def test_records_are_clean(mode, tmp_path, mpirun, program):
    path = tmp_path / "records"
    passed(mpirun(2, VALGRIND + [program("records"), path, mode, 200, 3], timeout=600))
    ordered = ["ordered"] if mode.startswith("write_ordered") else []
    records_check(program, path, "records", 2, 200, 3, *ordered)


def test_unit_tests_are_clean():
    unit = BUILD / "test" / "unit" / "test_sfp"
    result = subprocess.run(VALGRIND + [str(unit)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
