"""Fake window tools: python scripts on a temporary PATH, in place of xdotool, swaymsg, …"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


@pytest.fixture
def fake_bin(tmp_path, monkeypatch):
    """Write fake tools (python scripts) into a directory that comes first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("DISPLAY", ":99")

    def install(name: str, body: str) -> Path:
        path = bin_dir / name
        path.write_text(f"#!{sys.executable}\nimport sys, time\nargs = sys.argv[1:]\n{body}\n")
        path.chmod(0o755)
        return path

    install.dir = bin_dir
    return install
