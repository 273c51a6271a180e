"""Tests of the lockless FUSE fixture (test/fixtures/lockless_fs) itself.

The other integration tests trust `lockless_mount` to be a file system on which every
lock fails with ENOLCK and everything else behaves like a local disk; these tests check
both halves of that promise, against the real mount and its backing directory.
"""
import errno
import fcntl
import multiprocessing
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

DAEMON = b"piox-lockless-fs"


def _get_lock(fd):
    """fcntl(F_GETLK) for a write lock on the first 8 bytes; returns the lock type found."""
    request = struct.pack("@hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 8, 0)
    answer = fcntl.fcntl(fd, fcntl.F_GETLK, request)
    return struct.unpack("@hhqqi4x", answer)[0]


# Each lock call an MPI-IO implementation (or anything else) might make.
LOCK_CALLS = {
    "fcntl F_SETLKW": lambda fd: fcntl.lockf(fd, fcntl.LOCK_EX, 8, 0),
    "fcntl F_SETLK": lambda fd: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 8, 0),
    "fcntl F_GETLK": _get_lock,
    "flock exclusive": lambda fd: fcntl.flock(fd, fcntl.LOCK_EX),
    "flock shared nonblocking": lambda fd: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
}


def _open_rw(path):
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


@pytest.fixture
def backing_dir(lockless_mount, lockless_dir):
    """The directory in the backing tree that mirrors `lockless_dir`.

    Found from the daemon's command line (piox-lockless-fs BACKING MOUNTPOINT).
    """
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if (len(args) >= 3 and args[0].endswith(DAEMON)
                and Path(os.fsdecode(args[2])).resolve() == lockless_mount.resolve()):
            return Path(os.fsdecode(args[1])) / lockless_dir.relative_to(lockless_mount)
    pytest.fail(f"no piox-lockless-fs process serves {lockless_mount}")


# ---- Locks ------------------------------------------------------------------------------

@pytest.mark.parametrize("call", LOCK_CALLS)
def test_lock_fails_with_enolck_on_the_mount(lockless_dir, call):
    fd = _open_rw(lockless_dir / "locked")
    try:
        with pytest.raises(OSError) as failure:
            LOCK_CALLS[call](fd)
        assert failure.value.errno == errno.ENOLCK
    finally:
        os.close(fd)


@pytest.mark.parametrize("call", LOCK_CALLS)
def test_lock_succeeds_on_a_normal_directory(tmp_path, call):
    fd = _open_rw(tmp_path / "locked")
    try:
        result = LOCK_CALLS[call](fd)
        if call == "fcntl F_GETLK":
            assert result == fcntl.F_UNLCK  # no one else holds a lock
    finally:
        os.close(fd)


# ---- Data -------------------------------------------------------------------------------

BLOCK = 4096
WRITERS = 4
BLOCKS_PER_WRITER = 64

def _block(index):
    """The contents of block INDEX: different for every block, so misplaced data shows."""
    return bytes((index * 7 + k) % 251 for k in range(256)) * (BLOCK // 256)


def _write_blocks(path, who):
    """Writer WHO pwrites blocks WHO, WHO+WRITERS, ..., interleaving with the others."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for index in range(who, WRITERS * BLOCKS_PER_WRITER, WRITERS):
            os.pwrite(fd, _block(index), index * BLOCK)
    finally:
        os.close(fd)


def test_concurrent_pwrites_read_back_exactly(lockless_dir, backing_dir):
    path = lockless_dir / "shared.dat"
    fork = multiprocessing.get_context("fork")
    writers = [fork.Process(target=_write_blocks, args=(path, who)) for who in range(WRITERS)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0

    expected = b"".join(_block(index) for index in range(WRITERS * BLOCKS_PER_WRITER))
    assert path.stat().st_size == len(expected)
    assert path.read_bytes() == expected
    assert (backing_dir / "shared.dat").read_bytes() == expected


def test_write_is_visible_to_another_process_at_once(lockless_dir, backing_dir):
    """A reader that already has the old data cached sees a new write without reopening."""
    path = lockless_dir / "visible.dat"
    path.write_bytes(b"a" * BLOCK)
    reader = os.open(path, os.O_RDONLY)
    assert os.pread(reader, BLOCK, 0) == b"a" * BLOCK  # now in the page cache
    writer = subprocess.Popen(
        [sys.executable, "-c",
         "import os, sys\n"
         "fd = os.open(sys.argv[1], os.O_WRONLY)\n"
         "os.pwrite(fd, b'b' * 100, 1000)\n"
         "print('written', flush=True)\n"
         "sys.stdin.read()\n",  # keep the descriptor open until told to finish
         str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"written\n"
        assert os.pread(reader, BLOCK, 0) == _overwritten()
        assert (backing_dir / "visible.dat").read_bytes() == _overwritten()
    finally:
        writer.communicate(timeout=60)
        os.close(reader)


def _overwritten():
    return b"a" * 1000 + b"b" * 100 + b"a" * (BLOCK - 1100)


# ---- Names and namespace operations -----------------------------------------------------

ODD_NAME = b"odd name\nwith a non-UTF-8 byte \xff"


def test_odd_file_name_round_trips(lockless_dir, backing_dir):
    directory = os.fsencode(lockless_dir)
    path = os.path.join(directory, ODD_NAME)
    with open(path, "wb") as f:
        f.write(b"contents")

    assert os.listdir(directory) == [ODD_NAME]
    assert os.listdir(os.fsencode(backing_dir)) == [ODD_NAME]
    assert os.stat(path).st_size == len(b"contents")
    with open(path, "rb") as f:
        assert f.read() == b"contents"

    os.unlink(path)
    assert os.listdir(directory) == []
    assert os.listdir(os.fsencode(backing_dir)) == []


def test_rename_replaces_the_target(lockless_dir, backing_dir):
    (lockless_dir / "old").write_bytes(b"new contents")
    (lockless_dir / "target").write_bytes(b"replaced")
    os.rename(lockless_dir / "old", lockless_dir / "target")

    assert not (lockless_dir / "old").exists()
    assert (lockless_dir / "target").read_bytes() == b"new contents"
    assert sorted(os.listdir(backing_dir)) == ["target"]


def test_truncate_by_path_and_by_descriptor(lockless_dir, backing_dir):
    path = lockless_dir / "sized"
    path.write_bytes(b"0123456789")
    os.truncate(path, 4)
    assert path.read_bytes() == b"0123"

    fd = os.open(path, os.O_RDWR)
    try:
        os.ftruncate(fd, 8192)  # grows with zeros, as ROMIO's MPI_File_set_size does
        assert os.fstat(fd).st_size == 8192
    finally:
        os.close(fd)
    assert path.read_bytes() == b"0123" + bytes(8188)
    assert (backing_dir / "sized").stat().st_size == 8192


def test_fallocate_extends_the_file(lockless_dir):
    fd = os.open(lockless_dir / "reserved", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.posix_fallocate(fd, 0, 1 << 20)
        assert os.fstat(fd).st_size == 1 << 20
    finally:
        os.close(fd)


def test_unlink_removes_the_file(lockless_dir, backing_dir):
    path = lockless_dir / "doomed"
    path.write_bytes(b"x")
    path.unlink()
    assert not path.exists()
    assert not (backing_dir / "doomed").exists()
    with pytest.raises(FileNotFoundError):
        path.unlink()


def test_mkdir_and_rmdir(lockless_dir, backing_dir):
    sub = lockless_dir / "sub"
    sub.mkdir(mode=0o750)
    assert sub.is_dir() and (backing_dir / "sub").is_dir()
    (sub / "inside").write_bytes(b"x")

    with pytest.raises(OSError) as failure:
        sub.rmdir()
    assert failure.value.errno == errno.ENOTEMPTY

    (sub / "inside").unlink()
    sub.rmdir()
    assert not sub.exists() and not (backing_dir / "sub").exists()
