"""The one way AntiDrift replaces a file of its own (settings.json, a calendar's last good
copy, the sync folder's files, the keyring): written whole under a temporary name beside it,
flushed and fsynced, renamed over it, and the folder fsynced, so a reader (or a crash) sees
the old file or the new one, never a part. Its reading counterpart is core/outside.py.

A task's write-back (tasks/textfile.py) writes its own way: it keeps the file's mode and
checks, just before the rename, that no editor saved meanwhile."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_whole(
    path: Path, data: bytes, mode: int = 0o600, *, durable: bool = True
) -> os.stat_result:
    """Write `data` as `path` whole (the new file's `mode`; the parent made if missing).
    `durable=False` skips the fsyncs (a note that may be lost in a crash, as long as it is
    never seen half written). The new file's stat."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".antidrift-{os.urandom(6).hex()}.tmp")  # what sync readers skip
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temp, flags, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    if durable:
        sync_folder(path.parent)
    return os.stat(path)


def sync_folder(folder: Path) -> None:
    """Make a rename in `folder` survive a power cut (quietly nothing where the platform or
    file system has no directory handles)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
