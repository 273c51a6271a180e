"""Parallel loading of Python (issue 17, section 2): under `piox load --python-prefix
DIR`, a process's own opens and stats of modules under DIR (sources, bytecode,
extension modules, their directories) come from its node's mirror.

A generated package of MODULES source modules and one extension module, imported by
/usr/bin/python3 from the counting FUSE fixture: the output is stock's; stock's
opens, lookups and listings grow with the processes, piox's do not: every count is
the same at 1 and 4 processes (the main script too: realpath and fopen are wrapped).
mpi4py (Debian's, on Open MPI) imports under piox load as it does without.
"""
import os
import subprocess
import sysconfig

import pytest

from conftest import _unmount
from test_counting_fs import counts, mount_counting
from test_loader_load import PIOX, piox_load

MODULES = 30
EXTENSION = """
#include <Python.h>
static PyObject *value(PyObject *self, PyObject *args) { return PyLong_FromLong(1000); }
static PyMethodDef methods[] = {{"value", value, METH_NOARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ext", NULL, -1, methods};
PyMODINIT_FUNC PyInit__ext(void) { return PyModule_Create(&module); }
"""
IMPORTER = f"""
import importlib, sys
sys.path.insert(0, sys.argv[1])
import pkg._ext
print(sum(importlib.import_module(f"pkg.mod{{i}}").VALUE for i in range({MODULES})) + pkg._ext.value())
"""
EXPECTED = f"{sum(range(MODULES)) + 1000}\n"


def each_printed_the_sum(done, processes, outputs):
    """Every process printed the sum, in its own file: mpiexec forwards the ranks'
    output in pieces that interleave anywhere ("14351435\n\n" in CI)."""
    printed = sorted(path.read_text() for path in outputs.iterdir())
    return done.returncode == 0 and printed == [EXPECTED] * processes


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """root/pkg: __init__.py, mod0.py ... and _ext (C); root/importer.py."""
    root = tmp_path_factory.mktemp("python-package")
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(MODULES):
        (pkg / f"mod{i}.py").write_text(f"VALUE = {i}\n")
    (root / "ext.c").write_text(EXTENSION)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", f"-I{sysconfig.get_paths()['include']}",
                    "-o", str(pkg / f"_ext{suffix}"), str(root / "ext.c")], check=True, timeout=120)
    (root / "importer.py").write_text(IMPORTER)
    return root


@pytest.fixture
def mounted(package, tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    mount_counting(package, mount)
    yield mount
    _unmount(mount)


def importer(root, processes, outputs):
    """The importer on `processes` ranks, each rank's output in a file of its own
    under `outputs` (emptied first)."""
    for old in outputs.iterdir():
        old.unlink()
    command = ["/usr/bin/python3", str(root / "importer.py"), str(root)]
    return ["mpiexec", "-outfile-pattern", str(outputs / "out.%r"), "-n", str(processes)] + command


def used(mount, run):
    before = counts(mount)
    done = run()
    after = counts(mount)
    return done, {op: after[op] - before[op] for op in after}


def test_modules_are_read_once_whatever_the_processes(mounted, tmp_path):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    stock = {}
    for processes in (1, 4):
        done, stock[processes] = used(mounted, lambda: subprocess.run(
            importer(mounted, processes, outputs), capture_output=True, text=True, timeout=300,
            env=env))
        assert each_printed_the_sum(done, processes, outputs), done.stdout + done.stderr
    assert stock[4]["open"] == 4 * stock[1]["open"] > 4 * MODULES, stock
    piox = {}
    for processes in (1, 4):
        done, piox[processes] = used(mounted, lambda: piox_load(
            importer(mounted, processes, outputs), options=["--python-prefix", str(mounted)],
            env={"PYTHONDONTWRITEBYTECODE": "1"}))
        assert each_printed_the_sum(done, processes, outputs), done.stdout + done.stderr
        assert done.stderr == ""
    # The reader's, once per job: each file once (+ __init__, _ext, the script), and
    # nothing per process, not even the main script (realpath and fopen, wrapped).
    assert piox[4] == piox[1], piox
    assert piox[1]["open"] <= MODULES + 4, piox
    assert piox[1]["opendir"] == 2, piox
    stock_lookups = (stock[4]["getattr"] - stock[1]["getattr"]) / 3  # 538 here
    assert stock_lookups > 4 * MODULES, stock


def test_links_and_real_paths_name_the_originals(tmp_path):
    """Under the prefix, readlink gives the original's target (an absolute one
    too, which the mirror's copy points inside the mirror), realpath the original
    path (and ENOENT for a missing one), fopen reads the copy and writes the
    original."""
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "data.txt").write_text("original\n")
    (root / "absolute").symlink_to(root / "sub" / "data.txt")
    (root / "relative").symlink_to("sub/data.txt")
    script = (
        "import os, sys, ctypes\n"
        "r = sys.argv[1]\n"
        "print(os.readlink(r + '/absolute'), os.readlink(r + '/relative'))\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.realpath.restype = ctypes.c_char_p\n"
        "print(libc.realpath((r + '/absolute').encode(), None).decode())\n"
        "print(libc.realpath((r + '/missing').encode(), None), ctypes.get_errno())\n"
        "print(open(r + '/relative').read().strip())\n"
        "with open(r + '/sub/new.txt', 'w') as f: f.write('written')\n")
    done = piox_load(["/usr/bin/python3", "-c", script, str(root)], options=["--python-prefix", str(root)])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [f"{root}/sub/data.txt sub/data.txt", f"{root}/sub/data.txt",
                                        "None 2", "original"], done.stdout
    assert (root / "sub" / "new.txt").read_text() == "written"


def test_bytecode_is_not_written_beside_the_sources(package, tmp_path, monkeypatch):
    """Python's mkdir of __pycache__ and its exclusive create of a .pyc are refused
    (EEXIST) without touching the file system: the import works, and no __pycache__
    appears in the original tree."""
    root = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(package), str(root)], check=True)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # as a user's Python runs
    done = piox_load(["/usr/bin/python3", str(root / "importer.py"), str(root)],
                     options=["--python-prefix", str(root)])
    assert done.returncode == 0 and done.stdout == EXPECTED, done.stderr
    assert not (root / "pkg" / "__pycache__").exists()
    stock = subprocess.run(["/usr/bin/python3", str(root / "importer.py"), str(root)],
                           capture_output=True, text=True, timeout=300)
    assert stock.stdout == EXPECTED and (root / "pkg" / "__pycache__").exists()


def test_mpi4py_imports_under_open_mpi():
    """Debian's mpi4py on Open MPI, its package directory served: the same ranks as
    without piox, and its extension module mapped from the node's copy."""
    prefix = "/usr/lib/python3/dist-packages"
    if not os.path.exists(os.path.join(prefix, "mpi4py")):
        pytest.skip("python3-mpi4py is not installed")
    script = ("from mpi4py import MPI; import mpi4py.MPI as m; "
              "maps = open('/proc/self/maps').read(); "
              "import os; mapped = '/root' + m.__file__ in maps; "
              "os.write(1, f'{MPI.COMM_WORLD.Get_rank()} {mapped}\\n'.encode())")
    command = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "2",
               "/usr/bin/python3", "-c", script]
    done = piox_load(command, options=["--python-prefix", prefix])
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == ["0 True", "1 True"], done.stdout + done.stderr
