"""An unusable data directory or a locked database: `antidrift serve` says so in one line and
exits non-zero, before gunicorn starts. (Tests run as root, where chmod blocks nothing, so
the unwritable directories are ones no permission bit can fix.)"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from antidrift.store.sqlite import SQLiteStore
from tests.support.server import REPO, free_port


def _serve(data_dir: Path, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "antidrift",
            "serve",
            "--data-dir",
            str(data_dir),
            "--port",
            str(free_port()),
            "--threads",
            "8",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "ANTIDRIFT_WINDOW_SOURCE": "off"},
    )


def _assert_one_line_error(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode != 0
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "gunicorn" not in out.lower(), out
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1, out
    assert lines[0].startswith("antidrift: ")
    for word in words:
        assert word in lines[0], lines[0]


def test_data_dir_under_a_regular_file(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = _serve(blocker / "sub", tmp_path)
    _assert_one_line_error(
        result, "Cannot create the data directory", "Not a directory", "--data-dir"
    )


@pytest.mark.parametrize("where", ["/proc/self", "/sys/kernel"])
def test_data_dir_that_exists_but_takes_no_files(tmp_path, where):
    if not Path(where).is_dir():
        pytest.skip(f"{where} is not mounted")
    result = _serve(Path(where), tmp_path)
    _assert_one_line_error(result, f"The data directory {where} is not writable", "--data-dir")


def _hold_exclusive(db_path: Path, wal: bool, ready: threading.Event, done: threading.Event):
    db = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN EXCLUSIVE")
    ready.set()
    done.wait(30)
    db.execute("ROLLBACK")
    db.close()


@pytest.mark.parametrize("existing", [False, True], ids=["new-database", "existing-wal-database"])
def test_locked_database(tmp_path, existing):
    """Another program holds BEGIN EXCLUSIVE. On an existing WAL database that still lets us
    open and read it; only a write proves the lock, so the store tries one at start-up."""
    data = tmp_path / "data"
    data.mkdir()
    db_path = data / "antidrift.sqlite3"
    if existing:
        SQLiteStore(db_path).close()
    ready, done = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_exclusive, args=(db_path, existing, ready, done))
    holder.start()
    try:
        assert ready.wait(10)
        result = _serve(data, tmp_path)
    finally:
        done.set()
        holder.join(10)
    _assert_one_line_error(result, "is locked by another program", "--data-dir")
