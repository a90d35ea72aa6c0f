"""A refused start leaves the data directory as it found it (issue 24: a refused corrupt
database left an empty -wal, a -shm and a lock file beside it). Every kind of refused
database, through each entry point; the file listing and every byte compared."""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from antidrift.store import datalock
from antidrift.store.migrations import MIGRATIONS
from antidrift.store.sqlite import SQLiteStore
from tests.support.server import REPO, free_port

BIN = Path(sys.executable).parent
PAGE = 4096


def _sqlite(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        db.execute(statement)
    db.close()


def _ours_with_history(db: Path) -> None:
    """An AntiDrift database as a server leaves it: WAL mode, history, no -wal beside it."""
    SQLiteStore(db).close()
    _sqlite(
        db,
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome) VALUES ('c1', 'Write', 'Done', 60,"
        " '2026-03-02T09:00:00+00:00', '2026-03-02T09:01:00+00:00',"
        " '2026-03-02T09:01:00+00:00', 'met')",
        *[
            f"INSERT INTO samples (commitment_id, app, title, at) VALUES ('c1', 'code',"
            f" '{'x' * 300}{i}', '2026-03-02T09:00:{i % 60:02d}+00:00')"
            for i in range(400)
        ],
    )
    assert not Path(f"{db}-wal").exists()


def damaged(db: Path) -> None:
    _ours_with_history(db)
    raw = bytearray(db.read_bytes())
    raw[12 * PAGE : 12 * PAGE + 200] = b"\xa5" * 200  # one b-tree page's header scribbled
    db.write_bytes(bytes(raw))


def foreign(db: Path) -> None:
    _sqlite(db, "PRAGMA journal_mode=WAL", "CREATE TABLE notes (body TEXT)")


def newer(db: Path) -> None:
    _ours_with_history(db)
    future = max(v for v, _, _ in MIGRATIONS) + 40
    _sqlite(db, f"INSERT INTO schema_migrations (version, name) VALUES ({future}, 'future')")


def not_sqlite(db: Path) -> None:
    db.write_bytes(b"my diary, not a database\n" * 200)


def _listing(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _env(data: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(data.parent),
        "ANTIDRIFT_DATA_DIR": str(data),
        "ANTIDRIFT_PORT": str(free_port()),
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


ENTRY_POINTS = {
    "serve": [sys.executable, "-m", "antidrift", "serve", "--threads", "8"],
    "gunicorn": [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "antidrift:create_app()"],
    "flask": [str(BIN / "flask"), "--app", "antidrift", "run"],
}


def _start(entry: str, data: Path) -> subprocess.CompletedProcess:
    env = _env(data)
    argv = ENTRY_POINTS[entry]
    if entry == "serve":
        argv = [*argv, "--data-dir", str(data), "--port", env["ANTIDRIFT_PORT"]]
    elif entry == "flask":
        argv = [*argv, "--port", env["ANTIDRIFT_PORT"]]
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("make", [damaged, foreign, newer, not_sqlite])
def test_a_refused_database_leaves_no_new_file_beside_it(tmp_path, make):
    data = tmp_path / "data"
    data.mkdir()
    make(data / "antidrift.sqlite3")
    before = _listing(data)
    result = _start("serve", data)
    assert result.returncode != 0, result.stdout + result.stderr
    assert _listing(data) == before


@pytest.mark.parametrize("entry", ["gunicorn", "flask"])
def test_every_entry_point_leaves_a_refused_directory_as_it_found_it(tmp_path, entry):
    data = tmp_path / "data"
    data.mkdir()
    damaged(data / "antidrift.sqlite3")
    before = _listing(data)
    result = _start(entry, data)
    out = result.stdout + result.stderr
    assert result.returncode != 0 and "is damaged" in out, out
    assert _listing(data) == before


def test_a_refused_start_keeps_a_lock_file_that_was_there_before(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    damaged(data / "antidrift.sqlite3")
    (data / "antidrift.lock").write_text("pid 1\n")  # left by an earlier server: not ours
    before = _listing(data)
    assert _start("serve", data).returncode != 0
    after = _listing(data)
    assert after.keys() == before.keys()  # still there (its text names the last holder)
    assert after["antidrift.sqlite3"] == before["antidrift.sqlite3"]


def test_a_server_that_opened_the_lock_file_before_a_refused_start_removed_it_locks_the_new_one(
    tmp_path,
):
    data = tmp_path / "data"
    refused = datalock.acquire(data)
    opened_meanwhile = os.open(data / datalock.LOCK_NAME, os.O_RDWR)  # a second start, racing
    refused.abandon()
    assert not (data / datalock.LOCK_NAME).exists()
    # That start's descriptor points at a removed file: locking it would hold nothing.
    assert not datalock._still_there(data / datalock.LOCK_NAME, opened_meanwhile)
    os.close(opened_meanwhile)
    held = datalock.acquire(data)
    try:
        fd = os.open(data / datalock.LOCK_NAME, os.O_RDWR)  # what a third start meets
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        held.release()
