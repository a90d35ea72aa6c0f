"""A database AntiDrift must not write into: `antidrift serve` refuses in one line, exits
non-zero, and leaves the file byte for byte as it was. An AntiDrift 0.2 file still opens and is
marked as ours. Real SQLite files, the real console entry point."""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from antidrift.store.check import APPLICATION_ID
from antidrift.store.migrations import MIGRATIONS
from antidrift.store.sqlite import SQLiteStore
from tests.support.require import need
from tests.support.server import REPO, RunningServer, free_port


def _serve(data_dir: Path, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "antidrift", "serve", "--port", str(free_port())]
    return subprocess.run(
        [*prefix, *argv, "--data-dir", str(data_dir), "--threads", "8"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(data_dir),
            "ANTIDRIFT_WINDOW_SOURCE": "off",
            "PYTHONDONTWRITEBYTECODE": "1",
        },
    )


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(result: subprocess.CompletedProcess, db: Path, *words: str) -> str:
    out = result.stdout + result.stderr
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert result.returncode != 0, out
    assert len(lines) == 1 and "Traceback" not in out, out
    line = lines[0]
    assert line.startswith("antidrift: ") and str(db) in line, line
    for word in words:
        assert word in line, line
    return line


@pytest.fixture
def data(tmp_path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


def _db(data: Path) -> Path:
    return data / "antidrift.sqlite3"


def _sqlite(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        db.execute(statement)
    db.close()


def test_someone_elses_sqlite_file_is_refused_and_never_migrated(data):
    db = _db(data)
    _sqlite(
        db,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
        "INSERT INTO notes VALUES (1, 'mine')",
    )
    before = _sha(db)
    line = _refused(_serve(data), db, "not an AntiDrift database", "move it aside")
    assert "--data-dir" in line
    assert _sha(db) == before
    assert not Path(f"{db}-wal").exists()


def test_a_file_marked_by_another_program_is_refused_even_with_our_table_names(data):
    db = _db(data)
    _sqlite(
        db,
        "PRAGMA application_id = 305419896",
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT)",
        "INSERT INTO schema_migrations VALUES (1, 'initial')",
        "CREATE TABLE runtime (id INTEGER)",
        "CREATE TABLE commitments (id TEXT)",
        "CREATE TABLE samples (id INTEGER)",
    )
    before = _sha(db)
    _refused(_serve(data), db, "not an AntiDrift database", "another program")
    assert _sha(db) == before


def test_a_file_that_is_not_sqlite_is_refused(data):
    db = _db(data)
    db.write_bytes(b"my diary, not a database\n" * 200)
    before = _sha(db)
    _refused(_serve(data), db, "not an AntiDrift database", "not an SQLite database")
    assert _sha(db) == before


def test_a_schema_from_a_newer_antidrift_is_refused(data):
    db = _db(data)
    SQLiteStore(db).close()
    future = max(v for v, _, _ in MIGRATIONS) + 40
    _sqlite(db, f"INSERT INTO schema_migrations (version, name) VALUES ({future}, 'future')")
    before = _sha(db)
    line = _refused(_serve(data), db, "made by a newer AntiDrift", "move it aside")
    assert str(future) in line
    assert _sha(db) == before


def _with_history(db: Path, rows: int) -> None:
    store = SQLiteStore(db)
    store.close()
    body = "x" * 300
    _sqlite(
        db,
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome) VALUES ('c1', 'Write', 'Done', 60,"
        " '2026-03-02T09:00:00+00:00', '2026-03-02T09:01:00+00:00',"
        " '2026-03-02T09:01:00+00:00', 'met')",
        *[
            f"INSERT INTO samples (commitment_id, app, title, at) VALUES ('c1', 'code',"
            f" '{body}{i}', '2026-03-02T09:00:{i % 60:02d}+00:00')"
            for i in range(rows)
        ],
        "PRAGMA wal_checkpoint(TRUNCATE)",
        "PRAGMA journal_mode=DELETE",
    )


def _quick_check_ok(db: Path) -> bool:
    try:
        return sqlite3.connect(db).execute("PRAGMA quick_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:  # "malformed": also a failed check
        return False


def test_a_damaged_file_is_refused(data):
    db = _db(data)
    _with_history(db, 400)  # ~30 pages of samples
    raw = bytearray(db.read_bytes())
    page = 4096
    assert len(raw) > 20 * page
    raw[12 * page : 12 * page + 200] = b"\xa5" * 200  # scribble over one b-tree page's header
    db.write_bytes(bytes(raw))
    assert not _quick_check_ok(db)
    before = _sha(db)
    line = _refused(_serve(data), db, "is damaged", "move it aside")
    assert "quick_check" in line
    assert _sha(db) == before


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A data directory an unprivileged user can reach (pytest's tmp dirs are root-only)."""
    top = Path(tempfile.mkdtemp(prefix="antidrift-ro-"))
    top.chmod(0o755)
    data = top / "data"
    data.mkdir()
    data.chmod(0o777)
    yield data
    shutil.rmtree(top, ignore_errors=True)


def test_a_database_it_cannot_write_is_refused_before_any_transition(shared_dir):
    """Made by another user (sudo): the server runs as `nobody`, the file is root's."""
    db = _db(shared_dir)
    _with_history(db, 3)
    if os.geteuid() == 0:
        need(shutil.which("setpriv"), "setpriv (util-linux) to run the server as nobody")
        nobody = pwd.getpwnam("nobody")
        prefix = (
            "setpriv",
            f"--reuid={nobody.pw_uid}",
            f"--regid={nobody.pw_gid}",
            "--clear-groups",
        )
    else:
        db.chmod(0o444)
        prefix = ()
    before = _sha(db)
    line = _refused(_serve(shared_dir, prefix), db, "Cannot write the database", "chown")
    assert "move it aside" in line
    assert _sha(db) == before


def test_an_antidrift_0_2_database_opens_keeps_its_history_and_is_marked(data):
    db = _db(data)
    # What 0.2's store did: migration 1 only, application_id left at 0.
    _sqlite(
        db,
        "PRAGMA journal_mode=WAL",
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)",
        *filter(str.strip, MIGRATIONS[0][2].split(";")),
        "INSERT INTO schema_migrations (version, name) VALUES (1, 'initial')",
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome) VALUES ('old', 'Write the 0.2 report', 'Sent', 60,"
        " '2026-03-02T09:00:00+00:00', '2026-03-02T09:01:00+00:00',"
        " '2026-03-02T09:01:00+00:00', 'met')",
    )
    server = RunningServer(data).start()
    try:
        history = server.get("/history")
        rows = history if isinstance(history, list) else history.get("commitments", history)
        assert "Write the 0.2 report" in str(rows)
    finally:
        server.stop()
    check = sqlite3.connect(db)
    try:
        assert check.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        versions = [r[0] for r in check.execute("SELECT version FROM schema_migrations")]
        assert versions == sorted(v for v, _, _ in MIGRATIONS)
    finally:
        check.close()
