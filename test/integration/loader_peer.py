"""Run under `piox load` (test_loader_load.py): talks to its node's load server as a
badly behaved process would, then as a good one, and prints what came back, one
line per exchange. Frames as in loader/protocol.h."""
import os
import socket
import struct
import sys

MAGIC, HELLO, RESOLVE, OPEN, MAP = 0x314C5850, 1, 2, 3, 4
STATUS = {0: "found", 1: "missing", 2: "refused"}


def connect():
    node = os.environ.get("PIOX_HOSTNAME") or socket.gethostname()
    peer = socket.socket(socket.AF_UNIX)
    peer.settimeout(30)
    peer.connect(os.path.join(os.environ["PIOX_LOAD_DIR"], node, "sock"))
    return peer


def frame(op, *strings, magic=MAGIC, length=None):
    payload = b"".join(s + b"\0" for s in strings)
    return struct.pack("<IHHI", magic, op, 0, len(payload) if length is None else length) + payload


def exchange(peer, data):
    peer.sendall(data)
    header = peer.recv(12, socket.MSG_WAITALL)
    if len(header) < 12:
        return "closed"
    _, _, status, length = struct.unpack("<IHHI", header)
    payload = peer.recv(length, socket.MSG_WAITALL) if length else b""
    strings = [s.decode(errors="replace") for s in payload.split(b"\0")[:-1]]
    return STATUS.get(status, str(status)) + (" " + strings[0] if strings else "")


def main():
    exe = sys.argv[1].encode()
    alone = connect()  # an exec wrapper's connection: one map, no hello
    print("map without hello:", exchange(alone, frame(MAP, exe, b"1")).split()[0])
    alone.close()
    good = connect()
    print("resolve before hello:", exchange(good, frame(RESOLVE, b"libc.so.6", b"")))
    print("hello:", exchange(good, frame(HELLO, exe, b"")))
    print("unknown op:", exchange(good, frame(77, b"x")))
    print("relative open:", exchange(good, frame(OPEN, b"lib/libc.so.6")))
    print("name with slash:", exchange(good, frame(RESOLVE, b"a/libc.so.6", b"")))
    print("missing:", exchange(good, frame(RESOLVE, b"libpiox-nowhere.so.1", b"")).split()[0])
    for name, data in [("bad magic", frame(HELLO, exe, b"", magic=0xDEADBEEF)),
                       ("oversized", frame(HELLO, exe, b"", length=1 << 30)),
                       ("no terminating NUL", frame(HELLO, exe, b"")[:-1])]:
        bad = connect()
        bad.sendall(data)
        if name == "no terminating NUL":  # the frame's length still counts the NUL
            bad.sendall(b"x")
        bad.settimeout(30)
        print(f"{name}:", "closed" if bad.recv(12) == b"" else "answered")
        bad.close()
    found = exchange(good, frame(RESOLVE, b"libc.so.6", b""))
    print("after all that:", found.split()[0], found.endswith("/libc.so.6"))


if __name__ == "__main__":
    main()
