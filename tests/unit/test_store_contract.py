"""The Store contract, run against both stores: FakeStore (what the controller and web tests
stand on) must behave as SQLiteStore does, or those tests prove things about a store that
does not exist. Each case runs once per store."""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.drift_records import Answer, Episode, Judgement, Source, Verdict, Window
from tests.fakes import START, FakeStore
from tests.support.store import committing

ACTIVE, REVIEW, LOCKED = RuntimeState.ACTIVE, RuntimeState.REVIEW, RuntimeState.LOCKED
MET, MISSED = Outcome.MET, Outcome.MISSED


@pytest.fixture(params=["FakeStore", "SQLiteStore"])
def store(request, tmp_path):
    made = FakeStore() if request.param == "FakeStore" else committing(tmp_path / "db.sqlite3")
    yield made
    made.close()


def commitment(cid: str, start=START, minutes: int = 10) -> Commitment:
    return Commitment(
        cid, f"do {cid}", "done", minutes * 60, start, start + timedelta(minutes=minutes)
    )


def ended(store, cid: str, *, start=START, took: int = 5, outcome=MET, samples=()) -> Commitment:
    """One commitment through active → review → history; samples are (app, title, second)."""
    c = commitment(cid, start)
    store.save(ACTIVE, c)
    for app, title, second in samples:
        store.add_sample(cid, WindowSample(app, title, start + timedelta(seconds=second)))
    stopped = c.stopped(start + timedelta(minutes=took))
    store.save(REVIEW, stopped)
    done = stopped.ended(stopped.ended_at, outcome, "")
    store.save(LOCKED, done)
    return done


def test_the_running_commitment_and_its_samples_load_in_time_order(store):
    c = commitment("now")
    store.save(ACTIVE, c)
    for app, second in (("mail", 20), ("code", 0), ("chat", 10)):
        store.add_sample("now", WindowSample(app, "t", START + timedelta(seconds=second)))
    loaded = store.load()
    assert (loaded.state, loaded.commitment) == (ACTIVE, c)
    assert [s.app for s in loaded.samples] == ["code", "chat", "mail"]
    assert [s.app for s in store.samples("now")] == ["code", "chat", "mail"]


def test_history_is_newest_first_and_pages_by_id_through_ties(store):
    # Ends at 09:05, 10:05, and four at 11:05: ties come newest-written first.
    for n in range(6):
        ended(store, f"c{n}", start=START + timedelta(hours=min(n, 2)))
    store.save(ACTIVE, commitment("running"))
    whole = [c.id for c in store.history()]
    assert whole == ["c5", "c4", "c3", "c2", "c1", "c0"]
    pages, before = [], None
    for _ in range(5):  # bounded: a paging bug must fail, not loop
        if not (page := store.history(limit=4, before=before)):
            break
        pages.append([c.id for c in page])
        before = page[-1].id
    assert pages == [["c5", "c4", "c3", "c2"], ["c1", "c0"]]
    assert [c.id for c in store.history(limit=2, before="c3")] == ["c2", "c1"]


@pytest.mark.parametrize("before", ["nobody", "running"])
def test_paging_from_an_id_not_in_history_is_a_key_error(store, before):
    ended(store, "c0")
    store.save(ACTIVE, commitment("running"))
    with pytest.raises(KeyError):
        store.history(limit=3, before=before)


def test_entry_and_correct_see_only_the_history(store):
    done = ended(store, "old")
    store.save(ACTIVE, commitment("running"))
    assert store.entry("old") == done
    assert store.entry("running") is None and store.entry("nobody") is None
    fixed = store.correct("old", MISSED, "it was not done")
    assert (fixed.outcome, fixed.note) == (MISSED, "it was not done")
    assert store.entry("old") == fixed
    assert store.correct("running", MISSED, "") is None
    assert store.correct("nobody", MISSED, "") is None
    assert store.load().commitment.outcome is None


def test_delete_removes_an_entry_with_everything_recorded_for_it(store):
    ended(store, "old", samples=[("code", "x", 0)])
    store.save_judgement("old", Window("code", "x"), Judgement(Verdict.ON_TASK, "serves it"))
    store.save_episode("old", Episode(1, START, START, "chat", "y", "off task"))
    store.save_drift_summary("old", 1, 0.5)
    ended(store, "kept", start=START + timedelta(hours=1), samples=[("mail", "z", 0)])
    assert store.delete("old") is True
    assert store.entry("old") is None and [c.id for c in store.history()] == ["kept"]
    assert store.samples("old") == [] and store.judgements("old") == {}
    assert store.episodes("old") == [] and store.drift_summaries(["old"]) == {}
    assert store.delete("old") is False and store.delete("nobody") is False
    assert [s.app for s in store.samples("kept")] == ["mail"]
    assert store.app_totals() == pytest.approx({"mail": 60.0})


def test_the_running_commitment_cannot_be_deleted(store):
    store.save(ACTIVE, commitment("running"))
    assert store.delete("running") is False
    assert store.load().commitment.id == "running"


def test_verdicts_episodes_and_summaries_are_kept_per_commitment(store):
    store.save(ACTIVE, commitment("c"))
    window = Window("firefox", "feed")
    store.save_judgement("c", window, Judgement(Verdict.OFF_TASK, "off task"))
    store.save_judgement(
        "c", window, Judgement(Verdict.ON_TASK, "you said this is on task", Source.YOU)
    )  # replaces
    first = Episode(1, START, START + timedelta(seconds=60), "firefox", "feed", "off task")
    store.save_episode("c", first)
    closed = Episode(**{**first.__dict__, "ended_at": START + timedelta(seconds=90)})
    store.save_episode("c", Episode(**{**closed.__dict__, "answer": Answer.BACK}))
    store.save_episode("c", Episode(2, START, START, "chat", "", "off task"))
    store.save_drift_summary("c", 1, 0.25)
    store.save_drift_summary("c", 2, None)  # replaces
    assert store.judgements("c") == {
        window: Judgement(Verdict.ON_TASK, "you said this is on task", Source.YOU)
    }
    assert [(e.number, e.answer) for e in store.episodes("c")] == [(1, Answer.BACK), (2, None)]
    assert store.episodes("c")[0].ended_at == START + timedelta(seconds=90)
    assert store.drift_summaries(["c", "other"]) == {"c": (2, None)}
    assert store.judgements("other") == {} and store.episodes("other") == []


def test_the_figures_of_the_history(store):
    ended(store, "a", took=4, outcome=MISSED, samples=[("code", "x", 0), ("mail", "", 100)])
    ended(store, "b", start=START + timedelta(hours=1), took=20, samples=[("code", "y", 0)])
    assert [(f.planned_secs, f.actual_secs, f.outcome) for f in store.ended_figures()] == [
        (600, 600, MET),  # b's timebox stopped it at 10 of the 20 minutes
        (600, 240, MISSED),
    ]
    assert len(store.ended_figures(limit=1)) == 1
    assert store.app_totals() == pytest.approx({"code": 60.0 + 60.0, "mail": 60.0})
    shares = store.window_time("a", START + timedelta(minutes=4), 12)
    assert [(w.app, w.title, w.seconds) for w in shares.windows] == [
        ("code", "x", 60.0),
        ("mail", "", 60.0),
    ]
    assert shares.sample_count == 2
    rows = store.export_rows()
    assert [r[0] for r in rows] == ["b", "a"] and [r[6] for r in rows] == ["met", "missed"]


def test_what_ended_since_a_moment_and_when_each_met_one_ended(store):
    """The week's two reads: a moment in another offset is the same moment (UTC+13 here)."""
    ahead = timezone(timedelta(hours=13))
    ended(store, "old", took=5)  # ends START + 5 min
    ended(store, "missed", start=START + timedelta(hours=1), took=5, outcome=MISSED)
    ended(store, "new", start=START + timedelta(hours=2), took=5)
    store.save(ACTIVE, commitment("running", START + timedelta(hours=3)))  # not ended
    since = (START + timedelta(hours=1, minutes=5)).astimezone(ahead)  # "missed"'s very end
    assert [c.id for c in store.ended_since(since)] == ["new", "missed"]
    assert store.ended_since(START + timedelta(hours=9)) == []
    assert store.met_times() == [
        START + timedelta(hours=2, minutes=5),
        START + timedelta(minutes=5),
    ]
