"""A small tmpfs to fill up: a real "No space left on device" for the disk-full tests."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.support.require import need

MISSING = "a small tmpfs for the disk-full tests: run them as root (mount -t tmpfs)"


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str = "2m") -> Iterator[Path]:
    """Mount a tmpfs of `size` at `where` for the block; need()s the privilege to."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = os.geteuid() == 0 and (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
            capture_output=True,
        ).returncode
        == 0
    )
    need(mounted, MISSING)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(folder: Path) -> Path:
    """Write a file until the file system is full; returns it (delete it to free the space)."""
    filler = folder / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                if len(chunk) == 1:
                    return filler
                chunk = chunk[: len(chunk) // 2]  # fill the last blocks too
