"""The daily backup's schedule and rotation, on a fake clock: no sleeps, real SQLite files."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from antidrift.store import backup
from tests.fakes import FakeClock, wait_until
from tests.support.history import seed_history


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "data" / "antidrift.sqlite3"
    seed_history(path, 3)
    return path


def _made(db) -> list:
    return backup.backups(db.parent / "backups")


def test_with_no_backup_yet_one_is_made_at_once(db, clock):
    scheduler = backup.Scheduler(db, now=clock.now)
    made = scheduler.tick()
    assert made is not None and [b.path for b in _made(db)] == [made]
    assert _made(db)[0].made == clock.now().replace(microsecond=0)


def test_a_backup_under_a_day_old_waits_and_one_is_made_once_a_day_has_passed(db, clock):
    backup.back_up(db, db.parent / "backups", clock.now())
    scheduler = backup.Scheduler(db, now=clock.now)
    clock.advance(timedelta(hours=23))
    assert scheduler.due_in() == timedelta(hours=1)
    assert scheduler.tick() is None
    assert len(_made(db)) == 1
    clock.advance(timedelta(hours=1))
    assert scheduler.tick() is not None
    assert len(_made(db)) == 2


def test_rotation_keeps_the_newest_seven(db, clock):
    scheduler = backup.Scheduler(db, now=clock.now)
    first_days = []
    for _day in range(10):
        first_days.append(scheduler.tick())
        clock.advance(timedelta(days=1))
    kept = [b.path for b in _made(db)]
    assert kept == list(reversed(first_days[-7:]))
    assert all(not path.exists() for path in first_days[:3])


def test_keep_zero_removes_no_backup(db, clock):
    """ANTIDRIFT_BACKUPS=0 with `antidrift backup` (rotate with keep 0): every backup stays.
    In process, so a mutation of rotate's guard is seen (test_sec_backups runs the CLI)."""
    scheduler = backup.Scheduler(db, keep=3, now=clock.now)
    made = []
    for _day in range(3):
        made.append(scheduler.tick())
        clock.advance(timedelta(days=1))
    assert backup.rotate(db.parent / "backups", 0, now=clock.now()) == []
    assert all(path.exists() for path in made)
    # and keep 1 does remove: the guard is what keeps them, not an empty listing
    assert len(backup.rotate(db.parent / "backups", 1, now=clock.now())) == 2


def test_rotation_never_touches_files_that_are_not_backups(db, clock):
    where = db.parent / "backups"
    where.mkdir()
    mine = [where / "notes.txt", where / "antidrift-copy.sqlite3", where / "antidrift.sqlite3"]
    # Names a backup's pattern would take but for their digits or their time: not backups.
    mine += [where / "antidrift-2026\u0660101T000000Z.sqlite3"]  # an Arabic-Indic zero
    mine += [where / "antidrift-20261301T000000Z.sqlite3"]  # month 13
    for path in mine:
        path.write_text("the user's")
    scheduler = backup.Scheduler(db, keep=1, now=clock.now)
    for _day in range(3):
        scheduler.tick()
        clock.advance(timedelta(days=1))
    assert len(_made(db)) == 1
    assert all(path.read_text() == "the user's" for path in mine)


def test_a_clock_set_back_makes_a_backup_rather_than_none_for_years(db, clock):
    backup.back_up(db, db.parent / "backups", clock.now() + timedelta(days=400))
    assert backup.Scheduler(db, now=clock.now).tick() is not None


def test_a_failing_backup_is_said_once_and_tried_again_an_hour_later(tmp_path, clock, caplog):
    missing = tmp_path / "data" / "antidrift.sqlite3"  # no database: nothing to back up
    scheduler = backup.Scheduler(missing, now=clock.now)
    with caplog.at_level(logging.WARNING, logger="antidrift.backup"):
        assert scheduler.tick() is None
        assert scheduler.due_in() == timedelta(hours=1)
        clock.advance(timedelta(hours=1))
        assert scheduler.tick() is None
    assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
    assert "nothing to back up" in caplog.records[0].getMessage()


def test_two_backups_within_one_second_both_keep_their_files(db, clock):
    first = backup.back_up(db, db.parent / "backups", clock.now())
    second = backup.back_up(db, db.parent / "backups", clock.now())
    assert first != second and first.exists() and second.exists()
    assert [b.path for b in _made(db)] == [second, first]


def test_the_thread_makes_the_start_up_backup_and_stops(db, clock):
    scheduler = backup.Scheduler(db, now=clock.now)
    scheduler.start()
    try:
        wait_until(lambda: _made(db), timeout=10)
    finally:
        scheduler.stop()
    scheduler._thread.join(5)
    assert not scheduler._thread.is_alive()


def test_a_copy_cut_short_is_cleared_at_the_next_start(db, clock):
    where = db.parent / "backups"
    where.mkdir()
    stale = where / "antidrift-20260101T000000Z.sqlite3.partial"
    stale.write_bytes(b"half a copy")
    scheduler = backup.Scheduler(db, now=clock.now)
    scheduler.start()
    scheduler.stop()
    scheduler._thread.join(5)
    assert not stale.exists()


def test_the_runtime_has_no_daily_backup_when_backups_are_off(tmp_path):
    from antidrift import settings
    from antidrift.server.bootstrap import build_backups

    off = settings.load({"ANTIDRIFT_BACKUPS": "0"}, data_dir=tmp_path)
    on = settings.load({}, data_dir=tmp_path)
    assert build_backups(off, FakeClock()) is None
    assert build_backups(on, FakeClock()).keep == 7
