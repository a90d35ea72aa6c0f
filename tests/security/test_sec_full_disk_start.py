"""Issue 30, item 14: a start on a full disk is one sentence saying so, and leaves the data
directory as it found it: no -wal, no -shm (and no database when there was none). A real
`antidrift serve` on a real full tmpfs (tests/support/tmpfs.py: root, or skipped)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from antidrift.store.sqlite import SQLiteStore
from tests.support.server import REPO, free_port
from tests.support.tmpfs import fill, small_tmpfs


def _serve(data: Path) -> tuple[subprocess.CompletedProcess, float]:
    began = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "antidrift", "serve", "--data-dir", str(data)]
        + ["--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "ANTIDRIFT_WINDOW_SOURCE": "off", "HOME": str(data)},
    )
    return result, time.monotonic() - began


def _refused_as_full(result: subprocess.CompletedProcess, took: float, data: Path) -> None:
    assert result.returncode != 0 and took < 15, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert f"The disk that holds {data} is full" in line and "Free some space" in line, line


@pytest.mark.parametrize("room", [0, 64], ids=["no room", "room for a few migrations"])
def test_a_start_on_a_full_disk_leaves_no_database_and_says_so(tmp_path, room):
    """With no room the first write fails; with 64 KiB the migrations start and one fails
    half-way (SQLite then rolls back by itself, and the sentence must still be the disk)."""
    with small_tmpfs(tmp_path / "disk", size="1m") as disk:
        data = disk / "data"
        data.mkdir()
        filler = fill(disk)
        os.truncate(filler, filler.stat().st_size - room * 1024)
        result, took = _serve(data)
        _refused_as_full(result, took, data)
        assert sorted(p.name for p in data.iterdir()) == []  # as it was found: empty
        filler.unlink()
        SQLiteStore(str(data / "antidrift.sqlite3")).close()  # room again: it opens


def test_a_start_on_a_full_disk_leaves_the_database_without_wal_or_shm(tmp_path):
    with small_tmpfs(tmp_path / "disk", size="1m") as disk:
        data = disk / "data"
        store = SQLiteStore(str(data / "antidrift.sqlite3"))
        store.close()
        before = sorted(p.name for p in data.iterdir())
        assert before == ["antidrift.sqlite3"]
        content = (data / "antidrift.sqlite3").read_bytes()
        filler = fill(disk)
        result, took = _serve(data)
        _refused_as_full(result, took, data)
        assert sorted(p.name for p in data.iterdir()) == before
        assert (data / "antidrift.sqlite3").read_bytes() == content
        filler.unlink()
        SQLiteStore(str(data / "antidrift.sqlite3")).close()
