"""Parallel loading's cases (loader_cases.py) and its anchor, without piox.

Every generated case prints what the issue's behaviours say it must when the loader
runs as glibc ships it: the runs with piox's load servers (issue 17) are compared
with these outputs. And the storm piox exists to end: without piox, the operations a
job sends the shared file system (the counting FUSE fixture, with no kernel cache)
grow with its processes, each of which searches and opens every library itself.
"""
import os
import subprocess

import pytest

import loader_cases
from test_counting_fs import counts, mount_counting
from conftest import _unmount


def run_case(case, root, processes=None, timeout=120):
    """The case's program from root, alone or as `processes` processes of mpiexec."""
    command = case.command(root)
    if processes:
        command = ["mpiexec", "-n", str(processes)] + command
    env = {**os.environ, **case.environment(root)}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("name", loader_cases.NAMES)
def test_each_case_runs_right_without_piox(loader_tree, name):
    done = run_case(loader_tree["cases"][name], loader_tree["root"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == loader_tree["cases"][name].expected
    assert done.stderr == ""


def test_without_piox_every_process_searches_and_opens_every_library(loader_tree, tmp_path):
    """The chain's LIBRARIES libraries from the counting fixture: one process's lookups
    and opens, times the processes, for 1 and 4 processes; at least one open per
    library and process."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    mount_counting(loader_tree["root"], mount)
    try:
        case = loader_tree["cases"]["chain"]
        used = {}
        for processes in (1, 4):
            before = counts(mount)
            done = run_case(case, mount, processes)
            assert done.returncode == 0 and done.stdout == case.expected * processes, done.stderr
            after = counts(mount)
            used[processes] = {op: after[op] - before[op] for op in after}
        one, four = used[1], used[4]
        assert one["open"] > loader_cases.LIBRARIES, one
        assert one["getattr"] > loader_cases.LIBRARIES, one
        assert four["open"] == 4 * one["open"] and four["getattr"] == 4 * one["getattr"], used
    finally:
        _unmount(mount)
