"""The LD_AUDIT client of parallel loading (loader/client, libpiox_load_audit.so) on
its own, with no load server: how it is built, and how a process falls back to stock
loading, with one line on stderr, when the server is absent or misbehaves.

The peers below are not stand-ins for the server: each is the broken peer that the
client's timeout and frame checks exist for (one that never answers, one that
answers garbage, one that hangs up).
"""
import errno
import os
import socket
import struct
import subprocess
import threading

import pytest

import loader_cases
from conftest import BUILD

CLIENT = BUILD / "loader" / "libpiox_load_audit.so"
EXPORTS = ["la_objopen", "la_objsearch", "la_symbind64", "la_version"]
FALLBACK = "; this process loads from the file system\n"
NODE = "nodeA"
FRAME = struct.Struct("<IHHI")  # loader/protocol.h's Frame: magic, op, status, length
MAGIC, HELLO, FOUND = 0x314C5850, 1, 0


@pytest.fixture(scope="module")
def client():
    if not CLIENT.exists():
        pytest.fail(f"{CLIENT} is missing: build loader/ first (make -C loader)")
    return CLIENT


def run(case, root, **settings):
    """The case's program with `settings` added to a clean environment (none of the
    caller's LD_AUDIT or PIOX_* settings)."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_AUDIT" and not k.startswith("PIOX_")}
    env.update(case.environment(root))
    env.update(settings)
    return subprocess.run(case.command(root), capture_output=True, text=True, timeout=120,
                          env=env)


def fallback_lines(done):
    return [line for line in done.stderr.splitlines(keepends=True) if line.startswith("piox load:")]


def test_client_needs_no_library_and_exports_only_the_audit_callbacks(client):
    dynamic = subprocess.run(["readelf", "-d", str(client)], capture_output=True, text=True,
                             check=True).stdout
    for tag in ("(NEEDED)", "(INIT)", "(INIT_ARRAY)"):  # no libc, so no constructors either
        assert tag not in dynamic, dynamic
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(client)], capture_output=True,
                             text=True, check=True).stdout
    assert sorted(line.split()[-1] for line in symbols.splitlines()) == EXPORTS, symbols


@pytest.mark.parametrize("name", loader_cases.NAMES)
def test_without_a_server_each_case_runs_as_stock_and_says_so_once(client, loader_tree, tmp_path,
                                                                    name):
    case, root = loader_tree["cases"][name], loader_tree["root"]
    stock = run(case, root)
    audited = run(case, root, LD_AUDIT=str(client), PIOX_LOAD_DIR=str(tmp_path),
                  PIOX_HOSTNAME=NODE)
    assert (audited.stdout, audited.returncode) == (stock.stdout, stock.returncode)
    assert audited.stdout == case.expected
    processes = 2 if name == "exec" else 1  # the exec'd child loads the client anew
    line = (f"piox load: cannot connect to {tmp_path}/{NODE}/sock: errno {errno.ENOENT}"
            + FALLBACK)
    assert audited.stderr == line * processes


def test_without_piox_load_dir_the_client_stays_silent(client, loader_tree):
    case = loader_tree["cases"]["origin"]
    done = run(case, loader_tree["root"], LD_AUDIT=str(client))
    assert (done.stdout, done.stderr, done.returncode) == (case.expected, "", 0)


def test_the_node_is_the_kernels_node_name_by_default(client, loader_tree, tmp_path):
    case = loader_tree["cases"]["origin"]
    done = run(case, loader_tree["root"], LD_AUDIT=str(client), PIOX_LOAD_DIR=str(tmp_path))
    assert done.stdout == case.expected
    assert fallback_lines(done) == [
        f"piox load: cannot connect to {tmp_path}/{os.uname().nodename}/sock: errno "
        f"{errno.ENOENT}" + FALLBACK]


class Peer:
    """A listening AF_UNIX socket at <dir>/<node>/sock, served by a thread that reads
    each request frame and calls answer(op, payload): bytes to send back, None to stay
    silent (the connection is kept open), or b"" to hang up."""

    def __init__(self, directory, answer):
        (directory / NODE).mkdir()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(directory / NODE / "sock"))
        self.listener.listen(8)
        self.answer = answer
        self.requests = []
        self.held = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed by close()
                return
            self.held.append(connection)
            header = connection.recv(FRAME.size, socket.MSG_WAITALL)
            magic, op, status, length = FRAME.unpack(header)
            payload = connection.recv(length, socket.MSG_WAITALL) if length else b""
            self.requests.append((magic, op, status, payload))
            reply = self.answer(op, payload)
            if reply == b"":
                connection.close()
            elif reply is not None:
                connection.sendall(reply)

    def close(self):
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(timeout=10)
        for connection in self.held:
            connection.close()


@pytest.fixture
def peer(tmp_path):
    peers = []

    def start(answer):
        peers.append(Peer(tmp_path, answer))
        return peers[-1]
    yield start
    for p in peers:
        p.close()


def run_against(peer_answer, peer, client, loader_tree, tmp_path, **settings):
    case = loader_tree["cases"]["origin"]
    listening = peer(peer_answer)
    done = run(case, loader_tree["root"], LD_AUDIT=str(client), PIOX_LOAD_DIR=str(tmp_path),
               PIOX_HOSTNAME=NODE, **settings)
    assert (done.stdout, done.returncode) == (case.expected, 0), done.stderr
    lines = fallback_lines(done)
    assert len(lines) == 1 and lines[0].endswith(FALLBACK), done.stderr
    return listening, lines[0], case


def test_a_server_that_never_answers_costs_the_timeout_then_stock(client, loader_tree, tmp_path,
                                                                   peer):
    listening, line, case = run_against(lambda op, payload: None, peer, client, loader_tree,
                                        tmp_path, PIOX_LOAD_TIMEOUT="0.3", LD_LIBRARY_PATH="/x:/y")
    assert line.startswith("piox load: timed out after 300 ms waiting for a reply on "
                           f"{tmp_path}/{NODE}/sock"), line
    # What it waited for was a well-formed hello: the executable and LD_LIBRARY_PATH.
    executable = os.path.realpath(case.command(loader_tree["root"])[0])
    assert listening.requests == [(MAGIC, HELLO, 0, f"{executable}\0/x:/y\0".encode())]


def test_a_frame_of_the_wrong_magic_is_refused(client, loader_tree, tmp_path, peer):
    reply = FRAME.pack(0x12345678, HELLO, FOUND, 0)
    _, line, _ = run_against(lambda op, payload: reply, peer, client, loader_tree, tmp_path)
    assert line == (f"piox load: bad frame from {tmp_path}/{NODE}/sock: magic 0x12345678, "
                    f"expected {MAGIC:#x}" + FALLBACK)


def test_a_server_that_hangs_up_is_named(client, loader_tree, tmp_path, peer):
    _, line, _ = run_against(lambda op, payload: b"", peer, client, loader_tree, tmp_path)
    assert line == (f"piox load: {tmp_path}/{NODE}/sock closed the connection before replying"
                    + FALLBACK)
