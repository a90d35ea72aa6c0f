"""The safety net never loses the history: a backup named for 2099, two restores in one
second, a restore killed half-way, a file that is no whole AntiDrift database, a `backups`
that is a file, read-only or full. Real SQLite files, the real `antidrift backup` and
`antidrift restore` commands, a real server, real tmpfs mounts."""

from __future__ import annotations

import hashlib
import logging
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from antidrift.store import backup, restore
from tests.fakes import wait_until
from tests.support.command import on_data as antidrift
from tests.support.history import seed_history
from tests.support.server import REPO, RunningServer
from tests.support.tmpfs import fill, small_tmpfs

FUTURE = "antidrift-20990101T000000Z.sqlite3"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _names(where: Path) -> set[str]:
    return {p.name for p in where.iterdir()}


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "data" / "antidrift.sqlite3"
    seed_history(path, 5)
    return path


def _dailies(db: Path, now: datetime, days: int) -> list[Path]:
    """`days` real backups, one a day, the newest a day old; and one named for 2099."""
    made = [
        backup.back_up(db, db.parent / "backups", now - timedelta(days=d))
        for d in range(1, days + 1)
    ]
    (db.parent / "backups" / FUTURE).write_bytes(made[0].read_bytes())
    return made


# -- 1. a backup named for a time after now ---------------------------------------------------


def test_a_backup_named_for_2099_is_not_the_newest_and_rotates_no_real_one_out(db, clock, caplog):
    where = db.parent / "backups"
    real = _dailies(db, clock.now(), 7)
    scheduler = backup.Scheduler(db, keep=7, now=clock.now)
    with caplog.at_level(logging.INFO, logger="antidrift.backup"):
        made = scheduler.tick()  # the newest real one is a day old: one is due, 2099 or not
        clock.advance(timedelta(hours=1))
        assert scheduler.tick() is None  # and now one is an hour old: none is due
    assert made is not None
    kept = [b.path for b in backup.backups(where, clock.now())]
    assert kept == [made, *real[:6]]  # the seven newest real ones; only the oldest went
    assert (where / FUTURE).exists()  # left alone: not ours to judge
    said = [r.getMessage() for r in caplog.records if FUTURE in r.getMessage()]
    assert len(said) == 1 and "not counted as the newest" in said[0], said


def test_antidrift_backup_keeps_the_seven_newest_real_ones_beside_one_for_2099(db):
    real = _dailies(db, datetime.now(UTC), 7)
    code, out = antidrift("backup", data=db.parent)
    assert code == 0, out
    assert FUTURE in out and "never rotated out" in out, out
    left = backup.backups(db.parent / "backups", datetime.now(UTC))
    assert len(left) == 7 and [b.path for b in left][1:] == real[:6], out
    assert (db.parent / "backups" / FUTURE).exists()


def test_backups_0_with_antidrift_backup_removes_no_backup(db):
    """ANTIDRIFT_BACKUPS=0 turns rotation off: a `backup` adds one and removes none."""
    real = _dailies(db, datetime.now(UTC), 9)
    code, out = antidrift("backup", data=db.parent, env={"ANTIDRIFT_BACKUPS": "0"})
    assert code == 0, out
    assert "Removed" not in out, out
    assert all(path.exists() for path in real)
    assert len(backup.backups(db.parent / "backups", datetime.now(UTC))) == 10


# -- 2. names never collide; nothing left when killed --------------------------------------------


def test_two_restores_in_one_second_keep_the_first_original(tmp_path, db):
    data = db.parent
    original = _sha(db)
    other = tmp_path / "other.sqlite3"
    seed_history(other, 2, seed=3)
    now = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)  # both in the same second
    first = restore.restore(other, data, now)
    restored = _sha(db)
    second = restore.restore(other, data, now)
    assert first is not None and second is not None and first != second
    assert _sha(first) == original  # the first original, byte for byte
    assert _sha(second) == restored
    assert sorted(p.name for p in data.glob("*before-restore*")) == sorted(
        [first.name, second.name]
    )


def _leave_leftovers(data: Path) -> list[Path]:
    """The files a restore and a backup killed mid-copy leave, as they leave them."""
    (data / "backups").mkdir(exist_ok=True)
    left = [
        data / "antidrift.sqlite3.restoring",
        data / "antidrift.sqlite3.restoring-journal",
        data / "backups" / "antidrift-20261204T090000Z.sqlite3.partial",
        data / "backups" / "antidrift-20261204T090000Z.sqlite3.partial-journal",
    ]
    for path in left:
        path.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 100)
    return left


def test_what_a_killed_restore_left_is_cleared_by_the_next_restore(tmp_path, db):
    data = db.parent
    good = backup.back_up(db, data / "backups", datetime.now(UTC) - timedelta(days=1))
    mine = data / "backups" / "notes.partial"  # not a name of ours: never touched
    left = _leave_leftovers(data)
    mine.write_text("the user's")
    code, out = antidrift("restore", str(good), data=data)
    assert code == 0, out
    assert [p for p in left if p.exists()] == []
    assert mine.read_text() == "the user's"


def test_what_a_killed_restore_left_is_cleared_by_the_next_start(tmp_path, db):
    data = db.parent
    left = _leave_leftovers(data)
    server = RunningServer(data, env={"ANTIDRIFT_BACKUPS": "0"}).start()  # no daily backup
    try:
        assert [p for p in left if p.exists()] == []
        assert server.get("/state")["runtime_state"] == "locked"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def big_backup(tmp_path_factory) -> Path:
    """A backup large enough that a restore takes a few tenths of a second to copy."""
    path = tmp_path_factory.mktemp("big") / "big.sqlite3"
    seed_history(path, 2000, samples_each=100)
    return path


def _kill_mid_copy(data: Path, file: Path, sig: signal.Signals) -> tuple[bool, int, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "antidrift", "restore", str(file), "--data-dir", str(data)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    copy = data / "antidrift.sqlite3.restoring"
    seen = False
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        if copy.exists():
            proc.send_signal(sig)
            seen = True
            break
        time.sleep(0.001)
    out, _ = proc.communicate(timeout=30)
    return seen, proc.returncode, out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_restore_stopped_mid_copy_leaves_no_half_copy_and_the_database_whole(
    tmp_path, db, big_backup, sig
):
    data, original = db.parent, _sha(db)
    for _attempt in range(5):  # until the signal lands while the copy is under way
        seen, code, out = _kill_mid_copy(data, big_backup, sig)
        assert "Traceback" not in out, out
        assert sorted(p.name for p in data.glob("*.restoring*")) == [], out
        if seen and code == 130:
            assert "nothing was restored" in out, out
            assert _sha(db) == original and list(data.glob("*before-restore*")) == []
            return
    pytest.fail("the signal never landed during the copy")


def test_a_restore_killed_with_sigkill_is_cleaned_up_by_the_next_one(tmp_path, db, big_backup):
    data, original = db.parent, _sha(db)
    for _attempt in range(5):
        seen, code, _ = _kill_mid_copy(data, big_backup, signal.SIGKILL)
        if seen and code == -signal.SIGKILL and list(data.glob("*.restoring*")):
            break
    else:
        pytest.fail("the kill never landed during the copy")
    assert _sha(db) == original  # a kill before the swap leaves the live file as it was
    code, out = antidrift("restore", str(big_backup), data=data)
    assert code == 0, out
    assert sorted(p.name for p in data.glob("*.restoring*")) == []
    [kept] = data.glob("*before-restore*")
    assert _sha(kept) == original


# -- 3. restore checks what it restores --------------------------------------------------------


def _bad_file(path: Path, kind: str) -> None:
    if kind == "empty SQLite file":
        sqlite3.connect(path).execute("PRAGMA user_version = 1").connection.close()
        return
    seed_history(path, 3)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = DELETE")
    if kind == "changed constraint":  # the rules' CHECK let one more verdict in
        db.execute("PRAGMA writable_schema = ON")
        db.execute(
            "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'drift_rules'",
            ("'off_task')", "'off_task', 'x')"),
        )
        db.close()
        return
    statement = {
        "extra index": "CREATE UNIQUE INDEX extra ON samples(commitment_id, id)",
        # A CHECK found inside a column's name once looped forever (restore and doctor hung).
        "a table of someone's": "CREATE TABLE mine (id INTEGER, last_checked TEXT)",
        "changed table": "ALTER TABLE commitments ADD COLUMN extra TEXT",
        "missing index": "DROP INDEX samples_by_commitment",
        "no commitments table": "DROP TABLE commitments",
        "newer schema": "INSERT INTO schema_migrations (version, name) VALUES (999, 'future')",
        "schema gap": "DELETE FROM schema_migrations WHERE version = 2",
        "foreign trigger": "CREATE TRIGGER t AFTER INSERT ON samples BEGIN SELECT 1; END",
        "foreign view": "CREATE VIEW v AS SELECT * FROM samples",
        "another program's": "PRAGMA application_id = 1234",
    }[kind]
    db.execute(statement)
    db.close()


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("empty SQLite file", "no AntiDrift history"),
        ("no commitments table", "table commitments is missing"),
        ("extra index", "an index extra AntiDrift did not make"),
        ("a table of someone's", "a table mine AntiDrift did not make"),
        ("changed table", "a table commitments is not as AntiDrift makes it"),
        ("missing index", "an index samples_by_commitment is missing"),
        ("changed constraint", "a table drift_rules is not as AntiDrift makes it"),
        ("newer schema", "newer AntiDrift"),
        ("schema gap", "versions have a gap"),
        ("foreign trigger", "trigger t AntiDrift did not make"),
        ("foreign view", "view v AntiDrift did not make"),
        ("another program's", "another program"),
    ],
)
def test_restore_refuses_what_is_no_whole_antidrift_database(tmp_path, db, kind, words):
    data, before = db.parent, _sha(db)
    bad = tmp_path / "bad.sqlite3"
    _bad_file(bad, kind)
    code, out = antidrift("restore", str(bad), data=data)
    assert code == 2, out
    assert "Nothing was restored" in out and words in out, out
    assert len(out.strip().splitlines()) == 1 and "Traceback" not in out, out
    # The start-up's advice (move the live database aside) is not for a file to restore.
    assert "move it aside" not in out and "--data-dir" not in out, out
    assert _sha(db) == before
    assert _names(data) == {"antidrift.lock", "antidrift.sqlite3"}


def test_restore_takes_a_whole_backup_of_an_older_schema(tmp_path, db, monkeypatch):
    """The check refuses what is missing, not what a later migration adds: start-up does."""
    from antidrift.store import opening
    from antidrift.store.check import APPLICATION_ID

    older = tmp_path / "older.sqlite3"
    conn = sqlite3.connect(older, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    monkeypatch.setattr(opening, "MIGRATIONS", opening.MIGRATIONS[:3])  # an older AntiDrift
    opening.migrate(conn)
    conn.close()
    code, out = antidrift("restore", str(older), data=db.parent)
    assert code == 0, out


# -- 4. `backups` a file, read-only, full ------------------------------------------------------


def _one_sentence(out: str, words: str) -> None:
    assert words in out and "Traceback" not in out, out
    assert len(out.strip().splitlines()) == 1, out


def test_backups_being_a_file_is_a_sentence_and_the_server_serves(tmp_path, db):
    data = db.parent
    (data / "backups").write_text("not a folder")
    code, out = antidrift("backup", data=data)
    assert code == 1
    _one_sentence(out, "is a file, not a folder")
    server = RunningServer(data, log_path=tmp_path / "server.log").start()
    try:
        log = wait_until(
            lambda: (
                "is a file, not a folder" in server.log_path.read_text()
                and server.log_path.read_text()
            )
        )
        assert server.get("/state")["runtime_state"] == "locked"
        assert "Traceback" not in log and log.count("is a file, not a folder") == 1, log
    finally:
        server.stop()
    assert (data / "backups").read_text() == "not a folder"


def _remount_read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True, capture_output=True)


def test_a_read_only_backups_folder_is_a_sentence_and_the_server_serves(tmp_path, db):
    data = db.parent
    old = backup.back_up(db, data / "backups", datetime.now(UTC) - timedelta(days=3))
    with small_tmpfs(data / "backups") as where:
        (where / old.name).write_bytes(b"")  # the mount hides the folder's own file
        _remount_read_only(where)
        code, out = antidrift("backup", data=data)
        assert code == 1
        _one_sentence(out, "is not writable")
        server = RunningServer(data, log_path=tmp_path / "server.log").start()
        try:
            log = wait_until(
                lambda: (
                    "is not writable" in server.log_path.read_text() and server.log_path.read_text()
                )
            )
            assert server.get("/state")["runtime_state"] == "locked"
            assert "Traceback" not in log, log
        finally:
            server.stop()


def test_a_full_backups_disk_is_a_sentence_and_leaves_no_half_copy(tmp_path, db):
    data = db.parent
    with small_tmpfs(data / "backups") as where:
        fill(where)
        code, out = antidrift("backup", data=data)
        assert code == 1
        _one_sentence(out, "The disk is full: no")  # ours, not SQLite's "database or disk is full"
        assert _names(where) == {"filler"}  # no partial copy, no journal
        server = RunningServer(data, log_path=tmp_path / "server.log").start()
        try:
            log = wait_until(
                lambda: (
                    "The disk is full: no" in server.log_path.read_text()
                    and server.log_path.read_text()
                )
            )
            assert server.get("/state")["runtime_state"] == "locked"
            assert "Traceback" not in log, log
            assert _names(where) == {"filler"}
        finally:
            server.stop()
