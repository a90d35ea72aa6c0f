"""SQLiteStore on a temp file: round trips, restart, atomic saves, migrations, no coach data."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta, timezone

import pytest

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.errors import StoreError
from antidrift.store import opening as database
from antidrift.store.migrations import MIGRATIONS
from tests.fakes import START, FakeClock, FakeCoach, wait_until
from tests.support.session import build_controller
from tests.support.store import committing

ACTIVE, REVIEW, LOCKED = RuntimeState.ACTIVE, RuntimeState.REVIEW, RuntimeState.LOCKED


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "data" / "antidrift.sqlite3"


@pytest.fixture
def sqlite_store(db_path):
    s = committing(db_path)
    yield s
    s.close()


def commitment(cid: str = "c-1", minutes: int = 10, start: datetime = START) -> Commitment:
    return Commitment(cid, "Write", "Done", minutes * 60, start, start + timedelta(minutes=minutes))


def test_a_fresh_store_is_locked_with_nothing_in_it(sqlite_store):
    loaded = sqlite_store.load()
    assert (loaded.state, loaded.commitment, loaded.samples) == (LOCKED, None, [])
    assert sqlite_store.history() == []


def test_the_data_directory_is_created(db_path):
    assert not db_path.parent.exists()
    committing(db_path).close()
    assert db_path.exists()


def test_active_commitment_and_samples_survive_a_reopen(db_path):
    c = commitment()
    s = committing(db_path)
    s.save(ACTIVE, c)
    s.add_sample(c.id, WindowSample("code", "a.py", START + timedelta(seconds=1)))
    s.add_sample(c.id, WindowSample("mail", "Inbox", START + timedelta(seconds=2)))
    s.close()
    loaded = committing(db_path).load()
    assert loaded.state is ACTIVE
    assert loaded.commitment == c
    assert [x.app for x in loaded.samples] == ["code", "mail"]


def test_times_keep_their_offset(db_path):
    tz = timezone(timedelta(hours=2))
    c = commitment(start=datetime(2026, 1, 1, 10, 0, tzinfo=tz))
    s = committing(db_path)
    s.save(ACTIVE, c)
    s.close()
    loaded = committing(db_path).load().commitment
    assert loaded.started_at == c.started_at
    assert loaded.started_at.utcoffset() == timedelta(hours=2)


def test_review_then_end_moves_the_commitment_to_history(sqlite_store):
    c = commitment()
    sqlite_store.save(ACTIVE, c)
    stopped = c.stopped(START + timedelta(minutes=3))
    sqlite_store.save(REVIEW, stopped)
    assert sqlite_store.load().commitment == stopped
    assert sqlite_store.history() == []
    ended = stopped.ended(stopped.ended_at, Outcome.MET, "ok")
    sqlite_store.save(LOCKED, ended)
    loaded = sqlite_store.load()
    assert (loaded.state, loaded.commitment) == (LOCKED, None)
    assert sqlite_store.history() == [ended]


def test_history_is_newest_first_and_limited(sqlite_store):
    for i in range(5):
        c = commitment(f"c-{i}", start=START + timedelta(hours=i))
        sqlite_store.save(ACTIVE, c)
        sqlite_store.save(LOCKED, c.ended(c.deadline, Outcome.MISSED, ""))
    assert [c.id for c in sqlite_store.history()] == ["c-4", "c-3", "c-2", "c-1", "c-0"]
    assert [c.id for c in sqlite_store.history(limit=2)] == ["c-4", "c-3"]


def test_samples_are_kept_per_commitment_in_time_order(sqlite_store):
    a, b = commitment("a"), commitment("b")
    sqlite_store.save(ACTIVE, a)
    sqlite_store.add_sample("a", WindowSample("late", "", START + timedelta(seconds=9)))
    sqlite_store.add_sample("a", WindowSample("early", "", START + timedelta(seconds=1)))
    sqlite_store.save(LOCKED, a.ended(START, Outcome.MET, ""))
    sqlite_store.save(ACTIVE, b)
    sqlite_store.add_sample("b", WindowSample("other", "", START))
    assert [s.app for s in sqlite_store.samples("a")] == ["early", "late"]
    assert [s.app for s in sqlite_store.samples("b")] == ["other"]
    assert [s.app for s in sqlite_store.load().samples] == ["other"]


def test_a_sample_for_an_unknown_commitment_is_refused(sqlite_store):
    with pytest.raises(sqlite3.IntegrityError):
        sqlite_store.add_sample("nope", WindowSample("code", "", START))


def test_a_save_that_fails_half_way_leaves_nothing_behind(sqlite_store, db_path):
    side = sqlite3.connect(db_path)
    side.execute(
        "CREATE TRIGGER refuse BEFORE UPDATE ON runtime BEGIN SELECT RAISE(ABORT, 'no'); END"
    )
    side.commit()
    side.close()
    with pytest.raises(sqlite3.DatabaseError):
        sqlite_store.save(ACTIVE, commitment())
    check = sqlite3.connect(db_path)
    assert check.execute("SELECT COUNT(*) FROM commitments").fetchone()[0] == 0
    assert check.execute("SELECT state FROM runtime").fetchone()[0] == "locked"
    check.close()


def test_a_process_killed_in_the_middle_of_a_transaction_loses_only_that_transaction(db_path):
    s = committing(db_path)
    s.save(ACTIVE, commitment("kept"))
    s.close()
    script = textwrap.dedent(
        f"""
        import os, signal, sqlite3
        db = sqlite3.connect({str(db_path)!r}, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE runtime SET state = 'review', commitment_id = NULL")
        db.execute("DELETE FROM commitments")
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], timeout=20)
    assert result.returncode == -9
    s = committing(db_path)
    try:
        assert s.integrity_ok()
        loaded = s.load()
        assert loaded.state is ACTIVE and loaded.commitment.id == "kept"
    finally:
        s.close()


def test_writes_without_close_survive_a_kill_of_the_writer(db_path):
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {os.getcwd()!r})
        from datetime import datetime, timedelta, timezone
        from antidrift.core.domain import Commitment, RuntimeState, WindowSample
        from antidrift.store.sqlite import SQLiteStore
        t = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
        from tests.support.store import committing
        s = committing({str(db_path)!r})
        c = Commitment("c-9", "Write", "Done", 600, t, t + timedelta(minutes=10))
        s.save(RuntimeState.ACTIVE, c)
        for i in range(50):
            s.add_sample(c.id, WindowSample("code", str(i), t + timedelta(seconds=i)))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert subprocess.run([sys.executable, "-c", script], timeout=20).returncode == -9
    s = committing(db_path)
    try:
        loaded = s.load()
        assert loaded.state is ACTIVE and loaded.commitment.id == "c-9"
        assert [x.title for x in loaded.samples] == [str(i) for i in range(50)]
    finally:
        s.close()


# -- migrations ---------------------------------------------------------------------------------


def test_migrations_are_recorded_once_and_not_reapplied(db_path):
    committing(db_path).close()
    committing(db_path).close()
    s = committing(db_path)
    assert s.schema_version() == MIGRATIONS[-1][0]
    s.close()
    db = sqlite3.connect(db_path)
    rows = db.execute("SELECT version, name, applied_at FROM schema_migrations").fetchall()
    db.close()
    assert [(v, n) for v, n, _ in rows] == [(v, n) for v, n, _ in MIGRATIONS]
    assert all(applied for _, _, applied in rows)


def test_a_new_migration_applies_to_an_existing_database_keeping_its_data(db_path, monkeypatch):
    s = committing(db_path)
    s.save(ACTIVE, commitment("old"))
    s.close()
    extra = (MIGRATIONS[-1][0] + 1, "add_tags", "CREATE TABLE tags (name TEXT)")
    monkeypatch.setattr(database, "MIGRATIONS", [*MIGRATIONS, extra])
    s = committing(db_path)
    try:
        assert s.schema_version() == extra[0]
        assert s.load().commitment.id == "old"
    finally:
        s.close()
    db = sqlite3.connect(db_path)
    names = [r[0] for r in db.execute("SELECT name FROM schema_migrations ORDER BY version")]
    assert names[-1] == "add_tags"
    assert db.execute("SELECT COUNT(*) FROM tags").fetchone() == (0,)
    db.close()


def test_a_failing_migration_is_rolled_back_and_not_recorded(db_path, monkeypatch):
    committing(db_path).close()
    broken = (MIGRATIONS[-1][0] + 1, "broken", "CREATE TABLE half (x); SELECT * FROM missing")
    monkeypatch.setattr(database, "MIGRATIONS", [*MIGRATIONS, broken])
    with pytest.raises(StoreError):
        committing(db_path)
    db = sqlite3.connect(db_path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    db.close()
    assert "half" not in tables
    assert versions == [v for v, _, _ in MIGRATIONS]


def test_the_database_runs_in_wal_mode(sqlite_store, db_path):
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    db.close()


def test_the_schema_has_no_place_for_coach_state(sqlite_store, db_path):
    db = sqlite3.connect(db_path)
    columns = {
        (table, col[1])
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        for col in db.execute(f"PRAGMA table_info({table})")
    }
    db.close()
    assert columns, "the schema should have columns"
    suspicious = {
        c for c in columns if any(w in c[1].lower() for w in ("coach", "proposal", "intent"))
    }
    assert suspicious == set()
    assert not {t for t, _ in columns if "coach" in t or "proposal" in t}


def test_a_proposal_is_kept_only_as_the_draft_and_the_draft_goes_with_planning(db_path):
    # 0.4: what the user types (and the proposal that filled their fields) is the draft,
    # kept through a restart while planning; nothing of it stays once planning ends.
    store = committing(db_path)
    controller = build_controller(store, FakeClock(), coach=FakeCoach())
    try:
        controller.enter_planning()
        controller.coaching.request("a very particular intent xyzzy")
        wait_until(lambda: controller.snapshot().coach.status == "ready")
        saved = store.load_draft()
        assert "xyzzy" in saved and "Write the intro paragraph" in saved
        controller.cancel_planning()
        assert store.load_draft() is None
    finally:
        controller.shutdown()
        store.close()


# -- errors people can act on -------------------------------------------------------------------


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path):
    path = tmp_path / "antidrift.sqlite3"
    path.write_bytes(b"this is not sqlite at all, just some text" * 100)
    with pytest.raises(StoreError) as err:
        committing(path)
    assert str(path) in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_data_directory_is_a_store_error_naming_the_fix(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError) as err:
            committing(folder / "antidrift.sqlite3")
        assert "--data-dir" in str(err.value)
    finally:
        folder.chmod(0o700)


def test_the_controller_over_sqlite_restarts_into_the_same_commitment(db_path):
    clock = FakeClock()
    first_store = committing(db_path)
    first = build_controller(first_store, clock)
    first.enter_planning()
    c = first.start_manual_commitment("Write", "Done", 20)
    first.record_window("code", "main.py")
    first.shutdown()  # no store.close(): a crash does not close anything
    clock.advance(60)
    second_store = committing(db_path)
    second = build_controller(second_store, clock)
    second.start()
    try:
        snap = second.snapshot()
        assert snap.state is ACTIVE
        assert (snap.commitment.id, snap.commitment.deadline) == (c.id, c.deadline)
        assert snap.evidence.last.title == "main.py"
        clock.set(c.deadline + timedelta(hours=1))
        assert second.expire_if_due()
    finally:
        second.shutdown()
        second_store.close()
        first_store.close()
    third = committing(db_path)
    try:
        loaded = third.load()
        assert loaded.state is REVIEW and loaded.commitment.ended_at == c.deadline
    finally:
        third.close()


def test_the_controller_over_sqlite_sends_an_overdue_commitment_to_review_on_startup(db_path):
    clock = FakeClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    s = committing(db_path)
    first = build_controller(s, clock)
    first.enter_planning()
    c = first.start_manual_commitment("Write", "Done", 5)
    first.shutdown()
    s.close()
    clock.advance(timedelta(days=1))
    s = committing(db_path)
    try:
        again = build_controller(s, clock)
        again.start()
        again.shutdown()
        snap = again.snapshot()
        assert snap.state is REVIEW
        assert snap.commitment.id == c.id and snap.commitment.ended_at == c.deadline
    finally:
        s.close()


def test_a_write_back_is_claimed_once_and_kept_through_the_end_of_the_review(db_path):
    s = committing(db_path)
    c = commitment()
    s.save(ACTIVE, c)
    stopped = c.stopped(START + timedelta(minutes=3))
    s.save(REVIEW, stopped)
    assert s.claim_write_back(c.id, "note") is True
    assert s.claim_write_back(c.id, "done") is False  # the second press
    s.save(LOCKED, stopped.ended(stopped.ended_at, Outcome.MET, "ok"))  # the review's own copy
    s.close()
    again = committing(db_path)
    assert again.entry(c.id).written_back == "note"
    again.release_write_back(c.id)  # a write that failed gives it back
    assert again.entry(c.id).written_back is None and again.claim_write_back(c.id, "done")
    again.close()


def test_migration_15_drops_the_query_of_every_url_already_kept(db_path, monkeypatch):
    """A query carries tokens and searches: kept before 0.6, it goes at the upgrade (and so
    from every backup made afterwards)."""
    monkeypatch.setattr(database, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 15])
    s = committing(db_path)
    raw = s.store._writer  # written as 0.5 kept it (today's save writes newer columns)
    raw.execute(
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs,"
        " started_at, deadline) VALUES ('old', 'Write', 'Done', 600, ?, ?)",
        (START.isoformat(), START.isoformat()),
    )
    for url in ("https://example.org/reset?token=s3cr3t", "https://example.org/plain", None):
        raw.execute(
            "INSERT INTO samples (commitment_id, app, title, at, at_epoch, url)"
            " VALUES ('old', 'firefox', 't', ?, 0, ?)",
            (START.isoformat(), url),
        )
    s.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    committing(db_path).close()
    db = sqlite3.connect(db_path)
    urls = [r[0] for r in db.execute("SELECT url FROM samples ORDER BY id")]
    db.close()
    assert urls == ["https://example.org/reset", "https://example.org/plain", None]


def test_migration_18_gives_every_standing_rule_a_global_text_id_keeping_its_order(
    db_path, monkeypatch
):
    """Rules became one on every machine (sync): their integer ids turn into random text,
    made once, and they keep their order and everything they say."""
    monkeypatch.setattr(database, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 18])
    s = committing(db_path)
    raw = s.store._writer  # rules as 0.5 kept them: integer ids
    for app, verdict in (("zoom", "off_task"), ("code", "on_task"), ("mail", "off_task")):
        raw.execute(
            "INSERT INTO drift_rules (app, title_contains, verdict, site) VALUES (?, '', ?, '')",
            (app, verdict),
        )
    s.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    s = committing(db_path)
    rules = s.rules()
    s.close()
    assert [(r.app, r.verdict.value) for r in rules] == [
        ("zoom", "off_task"), ("code", "on_task"), ("mail", "off_task")
    ]  # fmt: skip
    assert all(isinstance(r.id, str) and len(r.id) == 32 for r in rules)
    assert len({r.id for r in rules}) == 3


def test_a_long_run_of_changes_defers_checkpoints_and_the_log_is_cut_back(db_path):
    """Sync's first import (many changes in a row): the log is not checkpointed at each
    commit (but once after), and SQLite's own rhythm comes back, also when the run fails; a
    log grown long is cut back when it starts over (journal_size_limit)."""
    store = committing(db_path)
    try:
        pragma = lambda name: store._writer.execute(f"PRAGMA {name}").fetchone()[0]  # noqa: E731
        assert pragma("wal_autocheckpoint") == 1000
        assert pragma("journal_size_limit") == database.WAL_KEPT
        with pytest.raises(RuntimeError), store.deferred_checkpoints():
            assert pragma("wal_autocheckpoint") == 0
            store.save_draft("a draft written inside the run")
            raise RuntimeError("the import failed half way")
        assert pragma("wal_autocheckpoint") == 1000
    finally:
        store.close()
