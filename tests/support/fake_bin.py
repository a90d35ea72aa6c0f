"""Fake programs for the subprocess seam's callers: Python scripts in a folder that is the
whole PATH, so no real CLI or tool can run by accident (the `fake_bin` fixture)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

# Every fake starts with these: the fakes are Python scripts run by this very interpreter,
# and `args` is what they were called with.
PRELUDE = "import json, os, subprocess, sys, time\nargs = sys.argv[1:]\n"


class FakeBin:
    """`fake_bin(name, body)` writes an executable Python script called name; `fake_bin.dir`
    (or `fake_bin / name`) is where it is."""

    def __init__(self, folder: Path) -> None:
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)

    def __call__(self, name: str, body: str) -> Path:
        path = self.dir / name
        path.write_text(f"#!{sys.executable}\n{PRELUDE}{textwrap.dedent(body)}\n")
        path.chmod(0o755)
        return path

    def __truediv__(self, name: str) -> Path:
        return self.dir / name

    def __fspath__(self) -> str:
        return str(self.dir)

    def __str__(self) -> str:
        return str(self.dir)
