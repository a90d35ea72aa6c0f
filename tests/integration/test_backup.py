"""Backups and restore end to end: a real server with history, the real `antidrift backup`
and `antidrift restore` commands, real SQLite files damaged on purpose."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import pytest

from antidrift.store import backup
from tests.fakes import wait_until
from tests.support.command import on_data as antidrift
from tests.support.history import seed_history
from tests.support.plans import PLAN
from tests.support.server import RunningServer


def _live_history(server: RunningServer, count: int) -> list[str]:
    for i in range(count):
        assert server.post("/planning")[0] == 200
        assert server.post("/commitment", {**PLAN, "next_action": f"Step {i}"})[0] == 200
        server.post("/evidence/window", {"app": "code", "title": f"step{i}.py"})
        assert server.post("/finish")[0] == 200
        assert server.post("/end", {"outcome": "met", "note": f"note {i}"})[0] == 200
    return [row["id"] for row in server.get("/history")]


def _ids(path: Path) -> list[str]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute("SELECT id FROM commitments WHERE outcome IS NOT NULL")]
    finally:
        db.close()


def _integrity(path: Path) -> str:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damage(db: Path) -> None:
    raw = bytearray(db.read_bytes())
    # The headers of the second half's pages (the history's rows, written after the schema,
    # whose pages the migrations made first): the file opens, its rows are garbage.
    pages = len(raw) // 4096
    for page in range(pages // 2, pages):
        raw[page * 4096 : page * 4096 + 100] = b"\xa5" * 100
    db.write_bytes(bytes(raw))


@pytest.fixture
def served(tmp_path):
    data = tmp_path / "data"
    seed_history(data / "antidrift.sqlite3", 300, samples_each=40)  # a history of some size
    server = RunningServer(data).start()
    yield server
    server.stop()


def test_backup_while_the_server_serves_and_writes_holds_every_commitment(served):
    ids = set(_live_history(served, 3)) | set(_ids(served.data_dir / "antidrift.sqlite3"))
    assert served.post("/planning")[0] == 200
    assert served.post("/commitment", PLAN)[0] == 200
    writing, wrote = threading.Event(), []

    def write_samples() -> None:  # the server keeps writing while the copy is taken
        while not writing.is_set():
            wrote.append(served.post("/evidence/window", {"app": "code", "title": "x"})[0])

    writer = threading.Thread(target=write_samples)
    writer.start()
    try:
        code, out = antidrift("backup", data=served.data_dir)
    finally:
        writing.set()
        writer.join()
    assert code == 0, out
    # The server made one of its own at start (there was none); this is the command's.
    [made] = [b for b in backup.backups(served.data_dir / "backups") if str(b.path) in out]
    assert _integrity(made.path) == "ok"
    assert set(_ids(made.path)) == ids  # every ended commitment, the 300 seeded and the 3 live
    assert wrote and set(wrote) == {202}  # the server took every sample throughout
    # Each backup one file, complete in itself: no WAL beside it, none needed.
    assert {p.suffix for p in made.path.parent.iterdir()} == {".sqlite3"}
    assert served.get("/state")["runtime_state"] == "active"


def test_a_damaged_database_restored_from_its_backup_has_its_history_back(tmp_path):
    data = tmp_path / "data"
    server = RunningServer(data).start()
    try:
        ids = _live_history(server, 4)
        code, out = antidrift("backup", data=data)
        assert code == 0, out
    finally:
        server.stop()
    made = backup.backups(data / "backups")[0]  # the newest: the command's
    db = data / "antidrift.sqlite3"
    _damage(db)
    damaged = _sha(db)
    with pytest.raises(RuntimeError, match="is damaged"):
        RunningServer(data, log_path=tmp_path / "refused.log").start()

    code, out = antidrift("restore", str(made.path), data=data)

    assert code == 0, out
    [kept] = data.glob("antidrift.sqlite3.before-restore-*")
    assert _sha(kept) == damaged  # the damaged file is kept, byte for byte
    assert str(kept) in out
    again = RunningServer(data, log_path=tmp_path / "again.log").start()
    try:
        assert [row["id"] for row in again.get("/history")] == ids
    finally:
        again.stop()


def test_restore_is_refused_while_a_server_holds_the_data_directory(served, tmp_path):
    other = tmp_path / "other"
    seed_history(other / "antidrift.sqlite3", 2)
    made = backup.back_up(other / "antidrift.sqlite3", other / "backups", backup_now())
    db = served.data_dir / "antidrift.sqlite3"
    before = served.get("/history")
    code, out = antidrift("restore", str(made), data=served.data_dir)
    assert code == 2 and "already running" in out and "Stop it first" in out, out
    assert served.get("/history") == before
    assert list(served.data_dir.glob("*before-restore*")) == []
    assert db.exists()


def backup_now():
    from datetime import UTC, datetime

    return datetime.now(UTC)


@pytest.mark.parametrize("kind", ["damaged", "foreign", "missing", "empty"])
def test_restore_refuses_a_file_start_up_would_refuse_and_changes_nothing(tmp_path, kind):
    data = tmp_path / "data"
    seed_history(data / "antidrift.sqlite3", 5)
    db = data / "antidrift.sqlite3"
    before = _sha(db)
    bad = tmp_path / "bad.sqlite3"
    if kind == "damaged":
        seed_history(bad, 200, samples_each=20)
        _damage(bad)
    elif kind == "foreign":
        sqlite3.connect(bad).execute("CREATE TABLE notes (body TEXT)").connection.close()
    elif kind == "empty":
        bad.write_bytes(b"")
    code, out = antidrift("restore", str(bad), data=data)
    assert code == 2 and "othing was restored" in out, out
    assert "move it aside" not in out and "start afresh" not in out, out  # not the live one
    assert _sha(db) == before
    assert sorted(p.name for p in data.iterdir()) == ["antidrift.lock", "antidrift.sqlite3"]


def test_a_wal_left_by_a_killed_server_goes_aside_with_the_old_database(tmp_path):
    data = tmp_path / "data"
    db = data / "antidrift.sqlite3"
    seed_history(db, 3)
    made = backup.back_up(db, data / "backups", backup_now())
    # A server killed with its last transaction still in the WAL: the files as it left them.
    live = sqlite3.connect(db, isolation_level=None)
    live.execute("PRAGMA wal_autocheckpoint=0")
    live.execute("UPDATE commitments SET note = 'only in the WAL'")
    copy = tmp_path / "killed"
    copy.mkdir()
    for name in ("antidrift.sqlite3", "antidrift.sqlite3-wal", "antidrift.sqlite3-shm"):
        (copy / name).write_bytes((data / name).read_bytes())
    live.close()

    code, out = antidrift("restore", str(made), data=copy)

    assert code == 0, out
    assert not (copy / "antidrift.sqlite3-wal").exists()
    [kept] = [p for p in copy.glob("*before-restore*") if not p.name.endswith("-wal")]
    assert Path(f"{kept}-wal").exists()  # the old WAL went with the old file
    restored = sqlite3.connect(copy / "antidrift.sqlite3")
    assert {r[0] for r in restored.execute("SELECT note FROM commitments")} != {"only in the WAL"}
    restored.close()
    old = sqlite3.connect(kept)  # and the old file, read with its WAL, still has that write
    assert {r[0] for r in old.execute("SELECT note FROM commitments")} == {"only in the WAL"}
    old.close()


def test_backup_of_a_damaged_database_makes_none_and_keeps_the_good_ones(tmp_path):
    data = tmp_path / "data"
    db = data / "antidrift.sqlite3"
    seed_history(db, 200, samples_each=20)
    good = backup.back_up(db, data / "backups", backup_now())
    _damage(db)
    code, out = antidrift("backup", data=data)
    assert code == 1 and "damaged" in out and "no backup made" in out, out
    assert [b.path for b in backup.backups(data / "backups")] == [good]
    assert [p.name for p in (data / "backups").iterdir()] == [good.name]  # no partial copy


def test_backup_of_a_database_whose_schema_is_damaged_says_so_and_makes_none(tmp_path):
    data = tmp_path / "data"
    db = data / "antidrift.sqlite3"
    seed_history(db, 50)
    good = backup.back_up(db, data / "backups", backup_now())
    raw = bytearray(db.read_bytes())
    for page in range(1, len(raw) // 4096):  # every page's header but the file header's
        raw[page * 4096 : page * 4096 + 100] = b"\xa5" * 100
    db.write_bytes(bytes(raw))
    code, out = antidrift("backup", data=data)
    assert code == 1 and "is damaged" in out and "no backup made" in out, out
    assert [p.name for p in (data / "backups").iterdir()] == [good.name]


def test_the_server_backs_up_at_start_when_the_newest_backup_is_over_a_day_old(tmp_path):
    from datetime import timedelta

    data = tmp_path / "data"
    db = data / "antidrift.sqlite3"
    seed_history(db, 20)
    old = backup.back_up(db, data / "backups", backup_now() - timedelta(days=2))
    server = RunningServer(data).start()
    try:
        made = wait_until(
            lambda: [b for b in backup.backups(data / "backups") if b.path != old], timeout=15
        )
        assert set(_ids(made[0].path)) == set(_ids(db))
        assert _integrity(made[0].path) == "ok"
    finally:
        server.stop()


def test_backup_of_a_data_directory_with_no_database_leaves_nothing_behind(tmp_path):
    """A mistyped --data-dir is one sentence, not a new folder with a lock file in it."""
    typo = tmp_path / "dtaa"
    code, said = antidrift("backup", data=typo)
    assert code == 1 and "nothing to back up" in said and said.count("\n") == 1
    assert not typo.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    code, said = antidrift("backup", data=empty)
    assert code == 1 and "nothing to back up" in said
    assert list(empty.iterdir()) == []
