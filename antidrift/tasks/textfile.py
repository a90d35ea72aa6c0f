"""A task file read with bounds and changed in place without losing a byte of anything else.

Shared by the Markdown and todo.txt sources: bytes are decoded with `surrogateescape`, so a
file that is not valid UTF-8 still round-trips exactly; lines are split only at \\r\\n, \\n
and \\r (str.splitlines would also split at form feeds and U+2028, and an edit would then
rewrite them); a write goes to a temporary file beside the real one and is renamed over it,
after checking that the file still holds what was read. Write-backs to one file take turns
(`editing`): two at once would both find the file as they read it, and the second rename
would drop the first one's line. A file that is read-only or has other hard links is
refused, never replaced by a rename (that would make it writable, or cut the links)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from antidrift.core.files import sync_folder
from antidrift.core.outside import Unreadable, read_file
from antidrift.tasks.source import Conflict, SourceError

MAX_FILE = 1 << 20  # bytes; a task file larger than this is refused, not half-read
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ENDING = re.compile(r"\r\n|\r|\n")
_EDITING: dict[str, threading.Lock] = {}  # one lock per real path, for as long as we run
_EDITING_GUARD = threading.Lock()


@dataclass(frozen=True)
class FileSnapshot:
    """A file's bytes as read, and where its real (symlink-resolved) path is."""

    path: str
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "surrogateescape")


def file_key(path: Path) -> str:
    """A short, stable name for a configured file (the first part of its tasks' ids)."""
    return hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:6]


def task_key(title: str, occurrence: int) -> str:
    """The second part of a task's id: its title and how many same-titled tasks precede it
    (an id survives the file being edited above or below it)."""
    digest = hashlib.sha256(f"{title}\0{occurrence}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:10]


def split_lines(text: str) -> list[str]:
    """The lines of text with their endings; "".join() gives the text back exactly."""
    return _LINE.findall(text)


def body_and_ending(line: str) -> tuple[str, str]:
    """A line without its ending, and the ending ("" for a last line without one)."""
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


def newline_of(text: str) -> str:
    """The file's first line ending (for a line added after a last line that had none)."""
    match = _ENDING.search(text)
    return match.group(0) if match else "\n"


def _read_fd(path: str, label: str) -> bytes:
    """The file's bytes through the one bounded reader (core/outside.py)."""
    try:
        return read_file(path, max_bytes=MAX_FILE, what=f"{label}: the file")
    except Unreadable as exc:
        raise SourceError(f"{exc.message}.") from None


def read(path: Path, label: str) -> FileSnapshot:
    """The file's bytes, at most MAX_FILE; SourceError when missing, special or too large."""
    real = os.path.realpath(os.path.expanduser(path))
    return FileSnapshot(real, _read_fd(real, label))


@contextlib.contextmanager
def editing(path: Path) -> Iterator[None]:
    """Held from the read to the rename of a write-back: one write-back per file at a time."""
    real = os.path.realpath(os.path.expanduser(path))
    with _EDITING_GUARD:
        lock = _EDITING.setdefault(real, threading.Lock())
    with lock:
        yield


def _writable(info: os.stat_result, label: str) -> None:
    """SourceError when a rename over the file would change what the user set up."""
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise SourceError(f"{label} is read-only: nothing was written.")
    if info.st_nlink > 1:
        raise SourceError(
            f"{label} has other hard links, which a write would cut: nothing was written."
        )


def replace(snapshot: FileSnapshot, text: str, label: str) -> None:
    """Write text over the file atomically, keeping its permissions; Conflict (nothing
    written) when the file no longer holds the bytes the snapshot read; SourceError when it
    is read-only or hard-linked."""
    data = text.encode("utf-8", "surrogateescape")
    folder, name = os.path.split(snapshot.path)
    try:
        info = os.stat(snapshot.path)
    except OSError as exc:
        raise SourceError(f"{label}: the file cannot be read ({exc.strerror}).") from None
    _writable(info, label)
    if not os.access(snapshot.path, os.W_OK):
        raise SourceError(f"{label} is not writable for you: nothing was written.")
    mode = stat.S_IMODE(info.st_mode)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".antidrift", dir=folder)
    except OSError as exc:
        raise SourceError(f"{label}: cannot write beside the file ({exc.strerror}).") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        # Checked last, just before the rename: an editor that saved meanwhile wins.
        if _read_fd(snapshot.path, label) != snapshot.data:
            raise Conflict(
                f"{label} changed while AntiDrift was writing to it; nothing was written."
            )
        os.replace(temp, snapshot.path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise SourceError(f"{label}: the file could not be written ({exc.strerror}).") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    sync_folder(Path(folder))  # the rename itself survives a power cut
