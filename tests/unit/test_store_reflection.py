"""SQLiteStore for reflection: history paging, corrections, deletion, the SQL figures."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from antidrift.core import insights
from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.drift_records import Episode, Judgement, Verdict, Window
from antidrift.core.ports import EXPORT_COLUMNS
from antidrift.store import opening as database
from antidrift.store.migrations import MIGRATIONS
from antidrift.web.projection import history_json
from tests.fakes import START
from tests.support.store import committing, run

ACTIVE, REVIEW, LOCKED = RuntimeState.ACTIVE, RuntimeState.REVIEW, RuntimeState.LOCKED
MET, MISSED = Outcome.MET, Outcome.MISSED


@pytest.fixture
def db(tmp_path):
    s = committing(tmp_path / "antidrift.sqlite3")
    yield s
    s.close()


def test_history_pages_by_id_in_a_stable_order_even_when_ends_tie(db):
    # Four end at the very same instant: the order among them must still be fixed.
    for i in range(10):
        run(db, f"c{i}", start=START + timedelta(hours=min(i, 5)))
    whole = [c.id for c in db.history()]
    pages, before = [], None
    while True:
        page = db.history(limit=3, before=before)
        if not page:
            break
        pages.append([c.id for c in page])
        before = page[-1].id
    assert [cid for page in pages for cid in page] == whole
    assert [len(p) for p in pages] == [3, 3, 3, 1]
    assert whole[:4] == ["c9", "c8", "c7", "c6"]  # ties newest-written first


def test_paging_before_an_unknown_or_unended_id_is_a_key_error(db):
    run(db, "old")
    db.save(ACTIVE, Commitment("now", "a", "b", 60, START, START + timedelta(minutes=1)))
    for bad in ("nope", "now"):
        with pytest.raises(KeyError):
            db.history(limit=5, before=bad)


def test_correcting_an_entry_changes_only_its_outcome_and_note(db):
    first = run(db, "a", outcome=MISSED)
    run(db, "b")
    fixed = db.correct("a", MET, "was fine after all")
    assert fixed.outcome is MET and fixed.note == "was fine after all"
    assert fixed.started_at == first.started_at and fixed.ended_at == first.ended_at
    by_id = {c.id: c for c in db.history()}
    assert by_id["a"] == fixed and by_id["b"].outcome is MET


def test_correcting_an_unknown_or_running_commitment_finds_nothing(db):
    c = Commitment("now", "a", "b", 60, START, START + timedelta(minutes=1))
    db.save(ACTIVE, c)
    assert db.correct("nope", MET, "") is None
    assert db.correct("now", MET, "") is None
    assert db.load().commitment == c


def test_deleting_an_entry_removes_it_with_its_samples_and_app_time(db, tmp_path):
    run(db, "gone", samples=[("code", "a.py", 0), ("mail", "x", 30)])
    run(db, "kept", samples=[("code", "b.py", 0)])
    for cid in ("gone", "kept"):
        db.save_judgement(cid, Window("mail", "x"), Judgement(Verdict.OFF_TASK, "mail"))
        db.save_episode(cid, Episode(1, START, START, "mail", "x", "mail"))
        db.save_drift_summary(cid, 1, 0.5)
    assert db.delete("gone") is True
    assert [c.id for c in db.history()] == ["kept"]
    assert db.samples("gone") == [] and len(db.samples("kept")) == 1
    assert db.app_totals() == {"code": 60.0}
    raw = sqlite3.connect(tmp_path / "antidrift.sqlite3")
    tables = ("commitments", "samples", "app_time", "drift_judgements", "drift_episodes")
    for table in (*tables, "drift_summary"):
        ids = {
            r[0]
            for r in raw.execute(
                f"SELECT {'id' if table == 'commitments' else 'commitment_id'} FROM {table}"
            )
        }  # noqa: E501
        assert "gone" not in ids
    raw.close()
    assert db.drift_summaries(["gone", "kept"]) == {"kept": (1, 0.5)}


def test_deleting_an_unknown_or_running_commitment_changes_nothing(db):
    run(db, "old")
    c = Commitment("now", "a", "b", 60, START, START + timedelta(minutes=1))
    db.save(ACTIVE, c)
    db.add_sample("now", WindowSample("code", "x", START))
    assert db.delete("nope") is False
    assert db.delete("now") is False
    assert db.load().commitment == c and len(db.samples("now")) == 1
    assert [x.id for x in db.history()] == ["old"]


def test_ended_figures_are_the_histories_planned_and_actual_times(db):
    run(db, "a", minutes=30, took=41, outcome=MISSED)
    run(db, "b", minutes=25, took=10, start=START + timedelta(hours=1))
    assert db.ended_figures() == [insights.ended(c) for c in db.history()]
    assert db.ended_figures() == [
        insights.Ended(25 * 60, 10 * 60, MET),
        insights.Ended(30 * 60, 30 * 60, MISSED),  # the timebox stopped it at 30
    ]


def test_app_totals_sum_every_ended_commitment_and_skip_the_running_one(db):
    run(db, "a", samples=[("code", "x", 0), ("mail", "y", 50)], took=1)
    run(db, "b", samples=[("code", "x", 0)], took=5)
    db.save(ACTIVE, Commitment("now", "a", "b", 600, START, START + timedelta(minutes=10)))
    db.add_sample("now", WindowSample("games", "z", START))
    assert db.app_totals() == pytest.approx({"code": 50.0 + 60.0, "mail": 10.0})


def test_window_time_of_many_samples_returns_only_the_top_windows(db):
    samples = [("code", f"file{i}", i * 2) for i in range(500)]
    ended = run(db, "c", minutes=30, samples=samples)
    got = db.window_time("c", ended.ended_at, top=12)
    assert len(got.windows) == 12 and got.sample_count == 500
    assert sum(a.fraction for a in got.apps) == pytest.approx(1.0)


def test_migration_4_fills_sample_times_and_app_time_for_an_existing_history(tmp_path, monkeypatch):
    path = tmp_path / "old.sqlite3"
    monkeypatch.setattr(database, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 4])
    old = committing(path)
    # The store of that version wrote these rows; written raw so today's save() is not used.
    raw = old.store._writer  # autocommit, outside any change: what an old version did
    raw.execute(
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome) VALUES ('c', 'a', 'b', 600, ?, ?, ?, 'met')",
        (
            START.isoformat(),
            (START + timedelta(minutes=10)).isoformat(),
            (START + timedelta(seconds=120)).isoformat(),
        ),
    )
    for app, offset in (("code", 0), ("mail", 45), ("code", 90)):
        raw.execute(
            "INSERT INTO samples (commitment_id, app, title, at) VALUES ('c', ?, '', ?)",
            (app, (START + timedelta(seconds=offset)).isoformat()),
        )
    old.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    new = committing(path)
    try:
        assert new.schema_version() >= 4
        assert new.app_totals() == pytest.approx({"code": 45.0 + 30.0, "mail": 45.0})
        got = new.window_time("c", START + timedelta(seconds=120))
        assert got.sample_count == 3 and got.apps[0].app == "code"
        assert new.ended_figures() == [insights.Ended(600, 120, MET)]
    finally:
        new.close()


def test_export_rows_are_the_history_rows_in_their_column_order(db):
    run(db, "a", minutes=30, took=12, outcome=MISSED, note='say "hi", =1+1')
    run(db, "b", start=START + timedelta(hours=1), samples=[("code", "x", 0)])
    db.save_drift_summary("b", 2, 0.123456)
    items = db.history()
    want = history_json(items, db.drift_summaries([c.id for c in items]))
    for row in want:  # episodes are /history's alone: the CSV has one line per commitment
        assert row.pop("episodes") == [] and row.pop("evidence") == []  # lists, not columns
        assert row.pop("device_id") == ""  # the CSV names the machine by its name alone,
        row["device"] = None  # and the store leaves this one's to the route (its name)
    assert [dict(zip(EXPORT_COLUMNS, row, strict=True)) for row in db.export_rows()] == want
