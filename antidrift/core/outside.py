"""The one way AntiDrift reads data from outside itself (a calendar file, Firefox's session
store, a task file, saved settings, the sync folder): bounded in bytes and structure, and a
problem said in words that quote nothing of the content.

A file is looked at first (links followed): a FIFO or a device is a sentence, never opened
(opening one may block, or do something). A regular file is opened non-blocking and read only
when `fstat` of the open file still says it is one (a swap in between is caught); at most
`max_bytes`, counted as it is read (a file that grows meanwhile is refused too). JSON is
refused before it is parsed when it holds more containers than `max_containers` (memory),
and when it nests deeper than the parser goes (time and the stack).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path

from antidrift.core.errors import Error

CHUNK = 64 * 1024
MAX_CONTAINERS = 500_000  # objects and arrays in one JSON document
_SPACE = " \t\r"  # JSON's white space that a line (split at "\n") may hold
_DECODER = json.JSONDecoder()  # json.loads's own


class Why(StrEnum):
    """What kind of problem a read met; the value is how it is said (after what was read)."""

    MISSING = "does not exist"
    NOT_REGULAR = "is not a regular file ({})"
    TOO_LARGE = "is larger than {}"
    DENIED = "may not be read (permission denied)"
    FAILED = "cannot be read ({})"
    NOT_JSON = "holds no JSON ({})"
    TOO_DEEP = "is nested too deep"
    TOO_MANY = "holds more than {} objects and lists"


class Unreadable(Error):
    """Outside data that was not read, or not taken; `why` says which kind, `message` says it
    without quoting any of it ("the file is larger than 5 MB")."""

    def __init__(self, what: str, why: Why, detail: str = "") -> None:
        super().__init__(f"{what} {why.value.format(detail)}")
        self.why = why


def kind_of(mode: int) -> str:
    """A file type in words, for a refusal."""
    for test, name in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a file"


def read_file(path: str | Path, *, max_bytes: int, what: str = "the file") -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `max_bytes`;
    Unreadable otherwise."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):  # a FIFO or a device is looked at, never even opened
            raise Unreadable(what, Why.NOT_REGULAR, kind_of(mode))
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        raise Unreadable(what, Why.MISSING) from None
    except PermissionError:
        raise Unreadable(what, Why.DENIED) from None
    except OSError as exc:  # a socket, a device that will not open
        raise Unreadable(what, Why.FAILED, _words(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # replaced between the look and the open
            raise Unreadable(what, Why.NOT_REGULAR, kind_of(info.st_mode))
        if info.st_size > max_bytes:
            raise Unreadable(what, Why.TOO_LARGE, _size(max_bytes))
        chunks, size = [], 0
        while chunk := os.read(fd, min(CHUNK, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:  # it grew while it was read
                raise Unreadable(what, Why.TOO_LARGE, _size(max_bytes))
        return b"".join(chunks)
    except OSError as exc:
        raise Unreadable(what, Why.FAILED, _words(exc)) from None
    finally:
        os.close(fd)


def parse_json(
    data: bytes | str, *, what: str = "the file", max_containers: int = MAX_CONTAINERS
) -> object:
    """The JSON value of `data`; Unreadable when it is none, holds more objects and arrays
    than `max_containers` (counted before parsing: what it would cost in memory) or nests
    deeper than the parser goes."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    if text.count("{") + text.count("[") > max_containers:  # an upper bound: fast, in C
        raise Unreadable(what, Why.TOO_MANY, f"{max_containers:,}")
    try:
        return json.loads(text)
    except RecursionError:
        raise Unreadable(what, Why.TOO_DEEP) from None
    except json.JSONDecodeError as exc:  # where, never what: the text is not quoted
        raise Unreadable(what, Why.NOT_JSON, f"line {exc.lineno} column {exc.colno}") from None
    except ValueError:
        raise Unreadable(what, Why.NOT_JSON, "not text") from None


def parse_json_lines(
    lines: Iterable[str], *, what: str = "the file", max_containers: int = MAX_CONTAINERS
) -> Iterator[object]:
    """The JSON value of each line (JSON Lines, already split at "\\n"), each taken as
    parse_json takes a document — the same bounds, the same refusals (Unreadable) — without
    its cost per line: a line shorter than `max_containers` cannot hold more of them (so only
    a longer one is counted), and the value is decoded where it stands."""
    decode = _DECODER.raw_decode
    for line in lines:
        if len(line) > max_containers and line.count("{") + line.count("[") > max_containers:
            raise Unreadable(what, Why.TOO_MANY, f"{max_containers:,}")
        try:
            value, end = decode(line, len(line) - len(line.lstrip(_SPACE)))
            after = len(line) - len(line[end:].lstrip(_SPACE))  # past white space
            if after != len(line):
                raise json.JSONDecodeError("Extra data", line, after)  # as json.loads says it
        except RecursionError:
            raise Unreadable(what, Why.TOO_DEEP) from None
        except json.JSONDecodeError as exc:
            raise Unreadable(what, Why.NOT_JSON, f"line {exc.lineno} column {exc.colno}") from None
        except ValueError:  # a number past int's digits, as parse_json says it
            raise Unreadable(what, Why.NOT_JSON, "not text") from None
        yield value


def _size(limit: int) -> str:
    return f"{limit // (1 << 20)} MB" if limit >= 2 << 20 else f"{limit // 1024} KiB"


def _words(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()
