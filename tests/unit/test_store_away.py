"""Time away in the SQLite store (a real file): the away mark ends the window before it and
its own span is no window's, in the review's figures, the kept time per app and the samples
read back; away_secs round-trips into the history and the CSV; a database of the schema before
it takes the away migration with its data kept."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.ports import EXPORT_COLUMNS
from antidrift.store import opening as database
from antidrift.store.migrations import MIGRATIONS
from tests.fakes import START
from tests.support.store import committing

ACTIVE, REVIEW, LOCKED = RuntimeState.ACTIVE, RuntimeState.REVIEW, RuntimeState.LOCKED


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "data" / "antidrift.sqlite3"


@pytest.fixture
def store(db_path):
    s = committing(db_path)
    yield s
    s.close()


def commitment(cid: str = "c-1") -> Commitment:
    return Commitment(cid, "Write", "Done", 1200, START, START + timedelta(minutes=20))


def at(secs: float):
    return START + timedelta(seconds=secs)


def test_the_away_mark_drops_the_later_samples_and_its_span_is_no_windows(store):
    c = commitment()
    store.save(ACTIVE, c)
    for secs in range(0, 200, 10):  # the editor in front, input stopped at 40 s
        store.add_sample(c.id, WindowSample("code", "intro.md", at(secs)))
    store.mark_away(c.id, at(40))
    store.add_sample(c.id, WindowSample("code", "intro.md", at(600)))  # back at 10:00
    figures = store.window_time(c.id, at(630), 12)
    assert [(w.app, w.seconds) for w in figures.windows] == [("code", 70.0)]  # 40 + 30
    assert [a.app for a in figures.apps] == ["code"]
    assert [s.at for s in store.samples(c.id)] == [at(s) for s in (0, 10, 20, 30, 40, 600)]
    ended = replace(c, ended_at=at(630), outcome=Outcome.MET, away_secs=560)
    store.save(LOCKED, ended)
    assert store.app_totals() == {"code": 70.0}
    assert store.history()[0].away_secs == 560
    row = dict(zip(EXPORT_COLUMNS, store.export_rows()[0], strict=True))
    assert row["away_secs"] == 560


def test_away_secs_survive_a_reopen(db_path):
    s = committing(db_path)
    s.save(ACTIVE, replace(commitment(), away_secs=90))
    s.close()
    s = committing(db_path)
    try:
        assert s.load().commitment.away_secs == 90
    finally:
        s.close()


def test_a_database_of_the_previous_schema_takes_the_away_column(db_path, monkeypatch):
    away = next(i for i, (_, name, _) in enumerate(MIGRATIONS) if name == "away")
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS[:away])
    old = committing(db_path)
    assert old.schema_version() == MIGRATIONS[away - 1][0]
    old.close()
    db = sqlite3.connect(db_path)  # what 0.4 wrote: no away_secs column yet
    with db:
        db.execute(
            "INSERT INTO commitments (id, next_action, success_condition, timebox_secs,"
            " started_at, deadline, ended_at, outcome, actual_secs)"
            " VALUES ('old', 'Write', 'Done', 1200, ?, ?, ?, 'missed', 600)",
            (START.isoformat(), at(1200).isoformat(), at(600).isoformat()),
        )
        db.execute(
            "INSERT INTO samples (commitment_id, app, title, at, at_epoch)"
            " VALUES ('old', 'code', 'intro.md', ?, ?)",
            (START.isoformat(), START.timestamp()),
        )
    db.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    new = committing(db_path)
    try:
        assert new.schema_version() == MIGRATIONS[-1][0]
        (entry,) = new.history()
        assert (entry.id, entry.away_secs, entry.outcome) == ("old", 0, Outcome.MISSED)
        assert new.window_time("old", at(600), 12).windows[0].app == "code"
    finally:
        new.close()
