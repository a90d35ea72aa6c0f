"""One kit of hostile inputs for every reader of outside data (issue 41): each makes a file
at a path as a hostile local program could. A new reader gets all of them by being added to
the list its test walks (tests/security/test_sec_hostile_readers.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

SECRET = "hunter2-do-not-quote"  # in every hostile file's content: never in a message


def fifo(path: Path) -> None:
    os.mkfifo(path)


def device(path: Path) -> None:
    path.symlink_to("/dev/null")


def endless(path: Path) -> None:
    path.symlink_to("/dev/zero")


def folder(path: Path) -> None:
    path.mkdir()


def huge(path: Path) -> None:
    with open(path, "wb") as f:
        f.write(SECRET.encode())
        f.truncate(64 << 20)  # sparse: no disk, no time


def deep_json(path: Path) -> None:
    path.write_text("[" * 100_000 + f'"{SECRET}"' + "]" * 100_000)


def many_json(path: Path) -> None:
    path.write_text("[" + ",".join(["[]"] * 600_000) + f',"{SECRET}"]')


def bad_bytes(path: Path) -> None:
    path.write_bytes(b"\xff\xfe\x00" + SECRET.encode() + b"\x1b[2J\xe2\x80\xae\x80")


def broken_link(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere")


KIT: dict[str, Callable[[Path], None]] = {
    "a FIFO": fifo,
    "a device": device,
    "a link to /dev/zero": endless,
    "a folder": folder,
    "a huge file": huge,
    "deep JSON": deep_json,
    "JSON of many lists": many_json,
    "bad bytes and escapes": bad_bytes,
    "a broken link": broken_link,
}
