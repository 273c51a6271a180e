"""Parallel loading (issue 17) end to end: `piox load` starts the load servers
(piox-loadd, an MPI job of their own), runs the command with the LD_AUDIT client in
every process, and ends the servers.

Every loader case (loader_cases.py) prints exactly what it prints without piox. And
the storm ends: through the counting FUSE fixture (no kernel cache), a job's
operations on the shared file system no longer grow with its processes. Each
library is read once per job (once per reader with --readers), whatever the number
of processes and nodes, push or pull, and so is the executable: each process starts
from the node's copy (piox-load-exec, test_loader_exec.py), so no count grows.
"""
import os
import shutil
import socket
import subprocess

import pytest

import loader_cases
from conftest import BUILD, _unmount
from test_counting_fs import counts, mount_counting

PIOX = BUILD / "bin" / "piox"
AUDIT = BUILD / "loader" / "libpiox_load_audit.so"
SERVER = BUILD / "loader" / "piox-loadd"
EXEC = BUILD / "loader" / "piox-load-exec"
HERE = socket.gethostname()


def piox_load(command, env=None, options=(), nodes=None, timeout=300, cwd=None):
    """`piox load [options] -- command`, with the client, server and piox-load-exec of
    this build."""
    for needed in (PIOX, AUDIT, SERVER, EXEC):
        if not needed.exists():
            pytest.fail(f"{needed} is missing: run `make` in {BUILD}")
    environment = {**os.environ, "PIOX_LOAD_AUDIT": str(AUDIT), "PIOX_LOAD_SERVER": str(SERVER),
                   "PIOX_LOAD_EXEC": str(EXEC), **(env or {})}
    environment.pop("PIOX_LOAD_NODES", None)
    if nodes:
        environment["PIOX_LOAD_NODES"] = " ".join(nodes)
    return subprocess.run([str(PIOX), "load", *options, "--", *command], capture_output=True,
                          text=True, timeout=timeout, env=environment, cwd=cwd)


def on_nodes(command, nodes, per_node):
    """mpiexec running `command` as `per_node` processes on each simulated node."""
    argv = ["mpiexec"]
    for node in nodes:
        argv += (["-n", str(per_node), "-env", "PIOX_HOSTNAME", node] + command + [":"])
    return argv[:-1]


@pytest.mark.parametrize("name", loader_cases.NAMES)
def test_each_case_prints_what_it_prints_without_piox(loader_tree, name):
    case = loader_tree["cases"][name]
    done = piox_load(case.command(loader_tree["root"]), env=case.environment(loader_tree["root"]))
    assert done.returncode == 0, done.stderr
    assert done.stdout == case.expected
    assert done.stderr == ""


def test_libraries_are_mapped_from_the_node_cache(tmp_path):
    """/proc/self/maps of a process run under piox load: its libc is the mirror's copy."""
    done = piox_load(["/bin/cat", "/proc/self/maps"], env={"PIOX_LOAD_BASE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    libc = [line.split()[-1] for line in done.stdout.splitlines() if "libc.so.6" in line]
    assert libc and all(path.startswith(str(tmp_path) + "/piox-load.") and "/root/" in path
                        for path in libc), done.stdout
    assert not list(tmp_path.iterdir()), "piox load left its directory behind"


def test_exit_status_is_the_commands():
    done = piox_load(["/bin/sh", "-c", "exit 7"])
    assert done.returncode == 7, done.stderr


@pytest.fixture
def counted_tree(loader_tree, tmp_path):
    """The loader cases seen through the counting fixture."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    mount_counting(loader_tree["root"], mount)
    yield mount
    _unmount(mount)


def used(mount, action):
    before = counts(mount)
    done = action()
    assert done.returncode == 0, done.stderr
    after = counts(mount)
    return done, {op: after[op] - before[op] for op in after}


@pytest.mark.parametrize("options", [(), ("--exe-as-is",)])
def test_each_library_is_read_once_whatever_the_processes(loader_tree, counted_tree, options):
    """The chain's LIBRARIES libraries at 1, 4 and 8 processes on one node: every
    count of the shared file system's operations is the same (the libraries are read
    once, and each process starts from the node's copy of the executable:
    piox-load-exec). With --exe-as-is each process's exec opens the executable from
    the file system, and only that grows."""
    case = loader_tree["cases"]["chain"]
    program = case.command(counted_tree)
    by_processes = {}
    for processes in (1, 4, 8):
        done, ops = used(counted_tree, lambda: piox_load(["mpiexec", "-n", str(processes)] + program,
                                                         options=options))
        assert done.stdout == case.expected * processes
        by_processes[processes] = ops
    one = by_processes[1]
    assert loader_cases.LIBRARIES < one["open"] <= loader_cases.LIBRARIES + 2, one
    for processes, ops in by_processes.items():
        if not options:
            assert ops == one, by_processes
        else:
            assert ops["open"] == one["open"] + processes - 1, by_processes
            assert ops["getattr"] - one["getattr"] < loader_cases.LIBRARIES, by_processes


def test_the_reader_costs_each_library_a_lookup_an_open_and_a_read(loader_tree, counted_tree):
    """One process: the reader sends the shared file system, per library, its lookup,
    its open and its read, and no getattr before the read (FUSE revalidates the size
    at each read() call; the reader copies through a mapping instead). Every library
    of the chain fits one read request."""
    case = loader_tree["cases"]["chain"]
    done, ops = used(counted_tree, lambda: piox_load(case.command(counted_tree)))
    assert done.stdout == case.expected
    libraries = loader_cases.LIBRARIES
    assert libraries < ops["getattr"] < libraries + 25, ops  # + directories and the exec's lookups
    assert libraries < ops["read"] < libraries + 10, ops  # + the executable, read by the kernel


@pytest.mark.parametrize("options,readers", [((), 1), (("--pull",), 1), (("--readers", "2"), 2)])
def test_nodes_share_what_their_reader_read(loader_tree, counted_tree, options, readers):
    """Two simulated nodes of two processes each: the libraries are read once per
    reader (the paper's forest with --readers), in push and pull alike."""
    case = loader_tree["cases"]["chain"]
    nodes = ["nodeA", "nodeB"]
    done, ops = used(counted_tree, lambda: piox_load(on_nodes(case.command(counted_tree), nodes, 2),
                                                     options=options, nodes=nodes))
    assert done.stdout == case.expected * 4
    library_opens = ops["open"] - readers  # the executable, read by each reader as a library is
    assert readers * loader_cases.LIBRARIES <= library_opens <= readers * (loader_cases.LIBRARIES + 1), ops


@pytest.mark.parametrize("launcher", [["mpiexec", "-n", "4"],
                                      ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "4"]])
def test_processes_pick_their_simulated_node_by_rank(tmp_path, launcher):
    """--nodes 2 under Hydra and Open MPI's mpirun: ranks 0 and 1 map their libc from
    node0's cache, ranks 2 and 3 from node1's (consecutive ranks share a node)."""
    if not shutil.which(launcher[0]):
        pytest.skip(f"{launcher[0]} is not installed")
    report = ('echo "${PMI_RANK:-$OMPI_COMM_WORLD_RANK}'
              ' $(grep -o "/piox-load[.][^/]*/[^/]*/root/" /proc/$$/maps | sort -u | cut -d/ -f3)"')
    done = piox_load([*launcher, "/bin/sh", "-c", report], options=["--nodes", "2"],
                     env={"PIOX_LOAD_BASE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == ["0 node0", "1 node0", "2 node1", "3 node1"], done.stdout
    assert not list(tmp_path.iterdir()), "piox load left its directory behind"


def test_operations_are_the_same_over_1_2_and_4_simulated_nodes(loader_tree, counted_tree):
    """The chain as 4 processes over 1, 2 and 4 simulated nodes (--nodes): one reader
    reads each library once, and the job's operations do not depend on the node count."""
    case = loader_tree["cases"]["chain"]
    command = ["mpiexec", "-n", "4"] + case.command(counted_tree)
    jobs = {nodes: used(counted_tree, lambda: piox_load(command, options=["--nodes", str(nodes)]))
            for nodes in (1, 2, 4)}
    for nodes, (done, ops) in jobs.items():
        assert done.stdout == case.expected * 4, (nodes, done.stdout)
        library_opens = ops["open"] - 1  # the executable, read by the reader as a library is
        assert loader_cases.LIBRARIES <= library_opens <= loader_cases.LIBRARIES + 1, (nodes, ops)
    seen = {nodes: ops for nodes, (_, ops) in jobs.items()}
    assert seen[1] == seen[2] == seen[4], seen


@pytest.mark.parametrize("options", [(), ("--pull",)])
def test_servers_idle_for_a_while_still_serve(loader_tree, options):
    """Two simulated nodes whose processes wait 2 s before they dlopen a library no
    one has asked for: the servers have gone idle (longer waits between rounds, for
    the CPU of a long job) and must still read, send and serve it, from the node."""
    case = loader_tree["cases"]["dlopen"]
    late = ["/bin/sh", "-c", 'sleep 2; exec "$0" "$@"', *case.command(loader_tree["root"])]
    nodes = ["nodeA", "nodeB"]
    done = piox_load(on_nodes(late, nodes, 1), options=options, nodes=nodes)
    assert done.returncode == 0, done.stderr
    assert done.stdout == case.expected * 2
    assert done.stderr == ""  # no process fell back to the file system


def test_the_server_refuses_bad_requests_and_serves_on():
    """A process speaking nonsense is refused or cut off; the server goes on serving."""
    from pathlib import Path
    peer = Path(__file__).with_name("loader_peer.py")
    done = piox_load(["/usr/bin/python3", str(peer), "/usr/bin/python3"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "map without hello: found",
        "resolve before hello: refused",
        "hello: found",
        "unknown op: refused",
        "relative open: refused",
        "name with slash: refused",
        "missing: missing",
        "bad magic: closed",
        "oversized: closed",
        "no terminating NUL: closed",
        "after all that: found True",
    ]


def test_a_dead_server_leaves_processes_loading_from_the_file_system(loader_tree):
    """The servers are killed before the program starts: it runs right from the file
    system, and says so on standard error."""
    case = loader_tree["cases"]["chain"]
    program = " ".join(case.command(loader_tree["root"]))
    script = (f'pkill -KILL -f "piox-loadd --dir $PIOX_LOAD_DIR"; sleep 1; exec {program}')
    done = piox_load(["/bin/sh", "-c", script])
    assert done.returncode == 0, done.stderr
    assert done.stdout == case.expected
    assert "piox load: cannot connect to" in done.stderr
    assert "this process loads from the file system" in done.stderr


def test_another_user_is_refused():
    """The job's directory is the user's alone (0700); and when its mode is opened up,
    the server still cuts off a process of another user (its peer credentials)."""
    import shutil
    import tempfile
    from pathlib import Path
    base = Path(tempfile.mkdtemp(prefix="piox-load-users-", dir="/tmp"))  # nobody may pass
    base.chmod(0o711)
    peer = Path(__file__).with_name("loader_peer.py")
    as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                 "/usr/bin/python3", "-c"]
    connect = ("import os, socket, sys; sys.path.insert(0, %r); import loader_peer as p\n"
               "s = p.connect()\n"
               "try:\n s.sendall(p.frame(p.HELLO, b'/bin/true', b'')); answer = s.recv(12)\n"
               "except (BrokenPipeError, ConnectionResetError):\n answer = b''\n"
               "print('closed' if answer == b'' else 'answered')" % str(peer.parent))
    script = (f'stat -c %a "$PIOX_LOAD_DIR" "$PIOX_LOAD_DIR"/*/; '
              f'{" ".join(as_nobody)} "{connect}" 2>&1 | tail -1; '
              f'chmod 755 "$PIOX_LOAD_DIR" "$PIOX_LOAD_DIR"/*/; chmod 777 "$PIOX_LOAD_DIR"/*/sock; '
              f'{" ".join(as_nobody)} "{connect}"')
    try:
        done = piox_load(["/bin/sh", "-c", script], env={"PIOX_LOAD_BASE": str(base)})
    finally:
        shutil.rmtree(base)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "700", "700", "PermissionError: [Errno 13] Permission denied", "closed"], done.stdout


def test_list_prints_the_closure_and_preload_reads_it_before_the_job(loader_tree, counted_tree, tmp_path):
    """--list PROGRAM: the program and the libraries the loader maps for it. --preload
    of that list: every library is read before the command starts (the paper's bulk
    preloading), and the command's processes read none of them again."""
    case = loader_tree["cases"]["chain"]
    program = case.command(counted_tree)[0]
    listed = piox_load([program], options=["--list"])
    assert listed.returncode == 0, listed.stderr
    paths = listed.stdout.splitlines()
    assert paths[0] == program and len(paths) == 1 + loader_cases.LIBRARIES + 2, paths  # + libc, ld.so
    assert sum(path.startswith(str(counted_tree) + "/chain/lib/") for path in paths) == loader_cases.LIBRARIES
    list_file = tmp_path / "preload.list"
    list_file.write_text(listed.stdout)
    # The command first prints how many opens the mount has seen, then runs the chain.
    probe = ("import os, subprocess, sys; "
             "stats = os.getxattr(sys.argv[1], 'user.piox_count.stats').decode(); "
             "print(dict(w.split('=') for w in stats.split())['open'], flush=True); "
             "sys.exit(subprocess.call(sys.argv[2:]))")
    before = counts(counted_tree)["open"]
    done = piox_load(["/usr/bin/python3", "-c", probe, str(counted_tree), "mpiexec", "-n", "2", program],
                     options=["--preload", str(list_file)])
    assert done.returncode == 0, done.stderr
    at_start, *outputs = done.stdout.splitlines()
    assert outputs == [case.expected.strip()] * 2
    assert int(at_start) - before == loader_cases.LIBRARIES + 1  # main and each library, read
    # and nothing after: Hydra's proxies start the processes from the node's copy
    # (mpiexec, run by Python, has the client: programs.h)
    assert counts(counted_tree)["open"] - int(at_start) == 0


@pytest.mark.parametrize("strip", [False, True])
def test_strip_keeps_only_what_the_loader_reads(tmp_path, strip):
    """A library with 1 MiB the loader never maps (a section outside every segment):
    with --strip its node-local copy holds a hole there, the same size, and loads and
    runs as the original; without, the copy is whole."""
    source = tmp_path / "big.c"
    source.write_text("int big_value(void) { return 42; }\n")
    library = tmp_path / "libbig.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True, timeout=60)
    (tmp_path / "junk").write_bytes(os.urandom(1 << 20))
    subprocess.run(["objcopy", "--add-section", f".piox_junk={tmp_path / 'junk'}",
                    "--set-section-flags", ".piox_junk=noload,readonly", str(library)], check=True)
    probe = ("import ctypes, os, sys; lib = ctypes.CDLL(sys.argv[1]); "
             "copy = [l.split()[-1] for l in open('/proc/self/maps') if 'libbig.so' in l][0]; "
             "st = os.stat(copy); print(lib.big_value(), copy != sys.argv[1], st.st_size, st.st_blocks * 512)")
    done = piox_load(["/usr/bin/python3", "-c", probe, str(library)], options=["--strip"] if strip else [])
    assert done.returncode == 0, done.stderr
    value, mirrored, size, allocated = done.stdout.split()
    assert (value, mirrored, int(size)) == ("42", "True", library.stat().st_size)
    if strip:
        assert int(allocated) < (1 << 20) // 4, done.stdout
    else:
        assert int(allocated) >= 1 << 20, done.stdout


def test_servers_start_one_per_host_of_the_job(tmp_path):
    """Which servers piox load starts (PIOX_LOAD_DRY_RUN: it says, and runs nothing): one
    per host the command's launcher names (Hydra's -hosts, Open MPI's hostfile), this
    host first, where rank 0 writes the ready file and watches for the stop file; an
    overlapping step under srun; simulated nodes; or one here. Real hosts and Slurm
    cannot run on this machine: this checks the commands only."""
    hostfile = tmp_path / "hosts"
    hostfile.write_text(f"n1 slots=4\n# a comment\nn2:2\nn1\n{HERE}\n")
    cases = [
        (["mpiexec", "-hosts", "a,b:2,a", "-n", "4", "./app"], {},
         f"mpiexec -hosts {HERE},a,b -ppn 1 -n 3 "),
        (["mpiexec", "-hosts", "a,localhost", "-n", "4", "./app"], {},
         f"mpiexec -hosts {HERE},a -ppn 1 -n 2 "),
        (["mpirun.openmpi", "--hostfile", str(hostfile), "-np", "4", "./app"], {},
         f"mpiexec -hosts {HERE},n1,n2 -ppn 1 -n 3 "),
        (["srun", "-n", "6", "./app"], {"SLURM_JOB_NUM_NODES": "3"},
         "srun --overlap --ntasks-per-node=1 --nodes=3 "),
        (["mpiexec", "-n", "2", "./app"], {}, "mpiexec -n 1 "),
        (["mpiexec", "-n", "2", "./app"], {"PIOX_LOAD_NODES": "x y"},
         "mpiexec -n 1 -env PIOX_HOSTNAME x "),
        (["mpiexec", "-n", "8", "./app"], {"PIOX_LOAD_NODES": "4"},
         f"mpiexec -n 4 {SERVER} --dir "),
    ]
    for command, env, servers in cases:
        done = piox_load(command, env={"PIOX_LOAD_DRY_RUN": "1", "PIOX_LOAD_BASE": str(tmp_path), **env},
                         nodes=env.get("PIOX_LOAD_NODES", "").split() or None)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith(f"servers: {servers}") and str(SERVER) in lines[0], (command, lines)
        assert lines[1].endswith(" ".join(command)) and f"LD_AUDIT={AUDIT}" in lines[1], (command, lines)
    assert list(tmp_path.iterdir()) == [hostfile]  # no job directory left behind


def test_bad_options_are_refused_before_anything_starts(tmp_path):
    """Each mistake gets exit status 2 and a message naming it; no server starts and
    no job directory is left behind."""
    cases = [(["--readers", "0"], None, "--readers needs a count"),
             (["--nodes", "0"], None, "--nodes needs a count"),
             (["--nodes", "two"], None, "--nodes needs a count"),
             (["--python-prefix", "relative"], None, "--python-prefix needs an absolute"),
             (["--preload", str(tmp_path / "absent")], None, "--preload needs a readable file"),
             (["--bogus"], None, "unknown option '--bogus'"),
             ([], ["0"], "PIOX_LOAD_NODES=0"),
             ([], None, "no command to run")]
    for options, nodes, message in cases:
        command = [] if message == "no command to run" else ["/bin/true"]
        done = piox_load(command, env={"PIOX_LOAD_BASE": str(tmp_path)}, options=options, nodes=nodes,
                         timeout=60)
        assert done.returncode == 2 and f"piox load: {message}" in done.stderr, (options, nodes, done)
    assert not list(tmp_path.iterdir())


def test_servers_refuse_a_node_count_that_is_not_their_number(tmp_path):
    """piox-loadd --nodes 3 as 2 servers: both say why and exit non-zero, leaving the
    directory as they found it."""
    done = subprocess.run(["mpiexec", "-n", "2", str(SERVER), "--dir", str(tmp_path), "--nodes", "3"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.count("--nodes 3 needs as many servers, not 2") == 2, done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", loader_cases.NAMES)
def test_each_case_reads_its_files_once_per_job(loader_tree, counted_tree, name):
    """Every case from the counting fixture, 1 then 3 processes: the extra processes
    cost the file system no open and no read (each starts from the node's copy of its
    executable, and so does exec's child: programs.h); so every library each case
    loads was served, whichever way the loader reached it (run paths, the RPATH chain,
    $ORIGIN, symlinks, dlopen, a search)."""
    case = loader_tree["cases"][name]
    env = case.environment(counted_tree)
    _, one = used(counted_tree, lambda: piox_load(case.command(counted_tree), env=env))
    done, three = used(counted_tree, lambda: piox_load(["mpiexec", "-n", "3"] + case.command(counted_tree),
                                                       env=env))
    assert done.stdout == case.expected * 3 or sorted(done.stdout.splitlines()) == sorted(
        case.expected.splitlines() * 3), done.stdout
    # The processes' own reads: mpiexec adds a few lookups of its own (getattr, access),
    # and a case that reads data files opens them in each process (their reads may
    # meet in the page cache when two processes read at once).
    data = 2 * loader_cases.DATA_OPENS.get(name, 0)
    assert three["open"] == one["open"] + data, (one, three)
    assert one["read"] <= three["read"] <= one["read"] + data, (one, three)
