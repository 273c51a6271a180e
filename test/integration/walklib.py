"""What the libpftw tests share: running test/programs/walk_list under mpiexec,
reading back the entries each rank visited, and find(1)'s view of the same tree."""
import glob
import json
import os
import subprocess
from collections import Counter
from dataclasses import dataclass

from conftest import MpiRun

PFTW_SUCCESS, PFTW_STOPPED, PFTW_ERR_ARG, PFTW_ERR_INFO, PFTW_ERR_NOT_SAME, PFTW_ERR_THREAD = range(6)
TYPE_LETTER = {1: "f", 2: "d", 3: "l"}  # PFTW_Type -> find's %y; the rest are "other"


@dataclass(frozen=True)
class Entry:
    path: bytes
    type: int
    depth: int
    error: int
    size: int  # -1 without a stat
    thread: int


@dataclass
class Walk:
    returncode: int
    stats: dict
    entries: list
    stdout: str
    stderr: str

    def paths(self):
        return [e.path for e in self.entries]

    def duplicates(self):
        return [p for p, n in Counter(self.paths()).items() if n > 1]


def run_walk(program, out_prefix, ranks, root, hints=None, args=(), timeout=300, env=None, launcher=None):
    """Runs walk_list on `ranks` processes; returns a Walk. Does not preload piox."""
    argv = [program, root, out_prefix] + [f"{k}={v}" for k, v in (hints or {}).items()] + list(args)
    run = launcher or MpiRun()
    return read_walk(out_prefix, run(ranks, argv, piox=False, timeout=timeout, env=env))


def read_walk(out_prefix, result):
    """The Walk that a finished walk_list run (a CompletedProcess) left behind."""
    stats = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            stats = json.loads(line)
    entries = []
    for name in glob.glob(glob.escape(str(out_prefix)) + ".*"):
        with open(name, "rb") as records:
            data = records.read()
        os.unlink(name)
        for record in data.split(b"\0")[:-1]:
            kind, depth, error, size, thread, path = record.split(b"\t", 5)
            entries.append(Entry(path, int(kind), int(depth), int(error),
                                 -1 if size == b"-" else int(size), int(thread)))
    return Walk(result.returncode, stats, entries, result.stdout, result.stderr)


def find_listing(root, *tests, user=None):
    """{path: (type letter, size)} as find(1) sees the tree (find -P: links not followed)."""
    command = ["find", root, *tests, "-printf", r"%y\t%s\t%p\0"]
    if user:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + command
    out = subprocess.run(command, capture_output=True).stdout
    listing = {}
    for record in out.split(b"\0")[:-1]:
        kind, size, path = record.split(b"\t", 2)
        listing[path] = (kind.decode(), int(size))
    return listing


def type_letter(entry):
    return TYPE_LETTER.get(entry.type, "?")
