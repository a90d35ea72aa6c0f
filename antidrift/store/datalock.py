"""One server per data directory: an flock on `<data-dir>/antidrift.lock`.

The kernel drops an flock when the last descriptor of its open file closes, so a crash or
`kill -9` never leaves a stale lock. A gunicorn worker inherits the master's descriptor:
both hold the same lock, and neither may unlock it explicitly (that would free it for both).
The kernel's table of open descriptors is also how a process finds a lock it already holds
(taken earlier, or inherited across fork): no registry of our own can disagree with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from antidrift.core.errors import StoreError
from antidrift.store.opening import prepare_directory

LOCK_NAME = "antidrift.lock"
# After `kill -9` of a gunicorn master its worker still holds the lock until it notices,
# within about a second; a new server waits that long when the recorded holder is gone.
ORPHAN_GRACE = 3.0
# `antidrift status` holds a shared lock for an instant to learn whether anyone serves the
# directory (holder_url): a server starting at that instant tries again for this long.
PROBE_GRACE = 0.25


class AlreadyRunning(StoreError):
    """Another AntiDrift holds this data directory."""


class DataDirLock:
    """A held lock on one data directory; `release()` closes this process's descriptor."""

    def __init__(self, directory: Path, fd: int, *, created: bool = False) -> None:
        self.directory, self._fd = directory, fd
        # The lock file was not there before this process (a forked worker inherits the
        # lock, not the file: only its maker may remove it).
        self._maker = os.getpid() if created else None

    def describe(self, url: str | None) -> None:
        """Say who holds the lock, so a second server can name the first one's page."""
        text = f"pid {os.getpid()}\n" + (f"url {url}\n" if url else "")
        with contextlib.suppress(OSError):  # a lock file we may only read still locks
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, text.encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def abandon(self) -> None:
        """Release after a refused start, removing the lock file if this process made it:
        a refusal leaves the data directory as it found it. (Removed while still held, so a
        server that opened it meanwhile sees it gone when its own lock is granted.)"""
        if self._maker == os.getpid() and self._fd >= 0:
            with contextlib.suppress(OSError):
                (self.directory / LOCK_NAME).unlink()
        self.release()


def acquire(directory: Path, *, url: str | None = None) -> DataDirLock:
    """Hold the data directory for this process's life, or raise AlreadyRunning.

    A lock this process already holds (its own, or its gunicorn master's, inherited) is
    found among its open descriptors and kept; `url` then updates what it says."""
    key = Path(os.path.abspath(directory))
    prepare_directory(key)
    path = key / LOCK_NAME
    held = _held_descriptor(path)
    if held is not None:
        lock = DataDirLock(key, os.dup(held))
        if url:
            lock.describe(url)
        return lock
    while True:
        fd, created = _open(path)
        if not _lock(fd, wait=PROBE_GRACE) and not (
            _holder_gone(fd) and _lock(fd, wait=ORPHAN_GRACE)
        ):
            holder = _holder(fd)
            os.close(fd)
            raise AlreadyRunning(
                f"AntiDrift is already running on the data directory {key}{holder}."
                " Use that one, stop it first, or choose another --data-dir."
            )
        if _still_there(path, fd):
            break
        os.close(fd)  # a refused start removed that file while we waited: lock the new one
    lock = DataDirLock(key, fd, created=created)
    lock.describe(url)
    return lock


def holder_url(directory: Path) -> str | None:
    """The URL the server holding this data directory recorded ("" when it recorded none);
    None when no server holds it. Creates nothing."""
    try:
        fd = os.open(Path(directory) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return None  # no lock file (or none we may read): nothing has served from here
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _fields(fd).get("url", "").strip()  # held: a server runs
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None  # a lock file left by a server that has stopped
    finally:
        os.close(fd)


def _held_descriptor(path: Path) -> int | None:
    """An open descriptor of this process on the lock file whose flock it holds, if any."""
    try:
        wanted = os.stat(path)
        fds = [int(name) for name in os.listdir("/dev/fd")]
    except OSError:
        return None
    for fd in fds:
        try:
            found = os.fstat(fd)
        except OSError:
            continue  # the descriptor listdir itself used, closed since
        if (found.st_dev, found.st_ino) != (wanted.st_dev, wanted.st_ino):
            continue
        try:  # on the open file that holds the lock this succeeds; on any other it is refused
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue
        return fd
    return None


def _open(path: Path) -> tuple[int, bool]:
    """The lock file's descriptor, and whether this call created the file."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644), True
    except FileExistsError:
        pass
    try:
        return os.open(path, os.O_RDWR), False
    except PermissionError:  # made by another user: reading is enough to lock it
        return os.open(path, os.O_RDONLY), False
    except FileNotFoundError:  # removed since: try again
        return _open(path)


def _still_there(path: Path, fd: int) -> bool:
    """Whether the locked file is still the one at `path` (not removed by a refused start)."""
    try:
        named, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _lock(fd: int, wait: float) -> bool:
    """Take the lock, trying for up to `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def _fields(fd: int) -> dict[str, str]:
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace")
    except OSError:
        return {}
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def _holder_gone(fd: int) -> bool:
    """The process that wrote the lock file has exited (its orphaned worker may linger)."""
    pid = _fields(fd).get("pid", "").strip()
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _holder(fd: int) -> str:
    """' at http://… (pid N)' from the lock file, as far as its holder wrote it."""
    fields = _fields(fd)
    url, pid = fields.get("url", "").strip(), fields.get("pid", "").strip()
    where = f" at {url}" if url else ""
    return where + (f" (pid {pid})" if pid.isdigit() else "")
