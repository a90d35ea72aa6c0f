"""The store's side of one day on every machine (store/sync_day.py, day_tables.py; a record
checked by core/day.py) and of the evidence a commitment's record carries
(store/sync_evidence.py): each change of an item waits in the outbox, another machine's item
takes its place by its key, the later stamp wins, a change made here and not sent wins, a
removal never takes an item started here, and an item whose commitment ran elsewhere leaves
the queue; a record's verdicts, episodes, figures and time per window are kept for another
machine's commitment, bounded, and a record without them changes none of them."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from antidrift.core.day import DayItem, item_of, record_of
from antidrift.core.errors import ValidationError
from antidrift.core.ports import Incoming
from antidrift.store.sync_evidence import MAX_WINDOWS
from tests.support.store import change, committing

OTHER = "abcdefghijklmnopqrstuvwxyz"
AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def stamp(n: int) -> str:
    return f"{n:018d}-000000-{OTHER}"


@pytest.fixture
def db(tmp_path):
    s = committing(tmp_path / "antidrift.sqlite3")
    yield s
    s.close()


def item(item_id: str, order: str, **fields) -> DayItem:
    base = DayItem(item_id, date(2026, 3, 2), f"do {item_id}", "", None, 0, AT, order=order)
    return DayItem(**{**base.__dict__, **fields})


def theirs(item_id: str, n: int, order: str = "h", **fields) -> Incoming:
    return Incoming(f"day_item:{item_id}", stamp(n), record_of(item(item_id, order, **fields)))


def take(db, *records: Incoming) -> int:
    with change(db):
        return db.store.sync_import_day(list(records))


def sent(db) -> None:
    with change(db):
        db.store.sync_sent(10**9, [])  # the outbox went to the folder


def queue(db) -> list[str]:
    return [i.id for i in db.day_queue()]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("id", "another"),
        ("order", "a0"),  # no key ends in 0
        ("order", None),
        ("next_action", ""),
        ("timebox_minutes", 900),
        ("created_at", "2026-03-02T09:00:00"),  # no offset
        ("started_at", "soon"),
        ("day", "Monday"),
        ("carried", "yes"),
    ],
)
def test_a_day_item_record_is_checked_as_an_item_made_here(field, value):
    good = record_of(item("a", "i", started_at=AT))
    assert item_of("a", good) == item("a", "i", started_at=AT)
    with pytest.raises(ValidationError):
        item_of("a", {**good, field: value})


def test_each_change_of_an_item_waits_in_the_outbox(db):
    with change(db):
        db.store.add_day_item(item("a", "i"))
        db.store.add_day_item(item("b", ""))  # no key: after the last one
    assert queue(db) == ["a", "b"]
    with change(db):
        db.store.move_day_item("b", "h")
        db.store.start_day_item("a", AT)
        db.store.unstart_day_item("a")
        db.store.clear_day_queue()
    refs = [(kind, ref) for _, kind, ref in db.sync_outbox()]
    assert refs[:5] == [("day_item", r) for r in ("a", "b", "b", "a", "a")]
    assert sorted(refs[5:]) == [("day_item", "a"), ("day_item", "b")]  # the clear: each one
    assert db.day_item("a") is None and queue(db) == []


def test_another_machine_s_item_takes_its_place_and_the_later_stamp_wins(db):
    with change(db):
        db.store.add_day_item(item("mine", "i"))
    sent(db)
    assert take(db, theirs("x", 5, "h")) == 1
    assert queue(db) == ["x", "mine"]
    assert take(db, theirs("x", 4, "j")) == 0  # older: nothing changes
    assert take(db, theirs("x", 6, "j")) == 1 and queue(db) == ["mine", "x"]
    assert take(db, Incoming("day_item:x", stamp(5), None)) == 0
    assert take(db, Incoming("day_item:x", stamp(7), None)) == 1 and queue(db) == ["mine"]
    assert take(db, theirs("x", 6, "j")) == 0  # the removal stands against an older edit


def test_a_change_made_here_and_not_sent_wins(db):
    with change(db):
        db.store.add_day_item(item("a", "i"))
    sent(db)
    with change(db):
        db.store.move_day_item("a", "k")  # waits in the outbox
    assert take(db, Incoming("day_item:a", stamp(9), None)) == 0
    assert [i.order for i in db.day_queue()] == ["k"]


def test_a_removal_never_takes_an_item_started_here(db):
    with change(db):
        db.store.add_day_item(item("a", "i"))
        db.store.start_day_item("a", AT)
    sent(db)
    assert take(db, Incoming("day_item:a", stamp(9), None)) == 1
    assert db.day_item("a").started_at == AT and queue(db) == []


def test_an_item_whose_commitment_ended_elsewhere_leaves_the_queue(db):
    with change(db):
        db.store.add_day_item(item("a", "i"))
    sent(db)
    body = {
        "id": "c1",
        "next_action": "do a",
        "success_condition": "done",
        "timebox_secs": 1500,
        "started_at": "2026-03-02T09:00:00+00:00",
        "deadline": "2026-03-02T09:25:00+00:00",
        "ended_at": "2026-03-02T09:25:00+00:00",
        "outcome": "met",
        "device_id": OTHER,
        "device": "laptop",
        "day_item_id": "a",  # started there from the same item
    }
    with change(db):
        db.store.sync_import(OTHER, [Incoming("commitment:c1", stamp(3), body)], "sha")
    assert queue(db) == []
    assert db.day_records(date(2026, 3, 2)) == [(date(2026, 3, 2), True, "met")]


def test_a_segment_with_kinds_this_version_does_not_know_is_read_again_by_one_that_does(db):
    with change(db):
        db.store.sync_import(OTHER, [], "sha-1", ["plan"])
        db.store.sync_import(OTHER, [], "sha-2")
    assert db.imported_segments() == {"sha-1", "sha-2"}
    assert db.imported_segments(frozenset({"commitment", "plan"})) == {"sha-2"}


EVIDENCE = {
    "windows": [["code", "main.py", "code", 900.0], ["firefox", "News", "news.example", 300]],
    "verdicts": [
        ["code", "main.py", "", "on_task", "the judge: the code", "judge"],
        ["firefox", "News", "news.example", "off_task", "news", "judge"],
        ["bad", "verdict", "", "maybe", "?", "judge"],  # left out
    ],
    "episodes": [
        {
            "number": 1,
            "app": "firefox",
            "title": "News",
            "reason": "news",
            "started_at": "2026-03-02T09:10:00+00:00",
            "nudged_at": "2026-03-02T09:10:30+00:00",
            "ended_at": "2026-03-02T09:15:00+00:00",
            "answer": "back",
        },
        {"number": 2, "app": "x", "title": "y", "reason": "z", "started_at": "soon"},  # out
    ],
    "summary": [1, 0.75, 0.0],
}


def test_what_another_machine_s_review_showed_is_kept_for_its_commitment(db):
    body = {
        "id": "c1",
        "next_action": "Write",
        "success_condition": "Done",
        "timebox_secs": 1500,
        "started_at": "2026-03-02T09:00:00+00:00",
        "deadline": "2026-03-02T09:25:00+00:00",
        "ended_at": "2026-03-02T09:25:00+00:00",
        "outcome": "met",
        "device_id": OTHER,
        "device": "laptop",
    }

    def arrive(n: int, **more) -> None:
        with change(db):
            db.store.sync_import(OTHER, [Incoming("commitment:c1", stamp(n), body | more)], "s")

    arrive(1, **EVIDENCE)
    until = datetime(2026, 3, 2, 9, 25, tzinfo=UTC)
    assert db.place_time("c1", until) == {
        ("code", "main.py", "code"): 900.0,
        ("firefox", "News", "news.example"): 300.0,
    }
    verdicts = db.judgements("c1")
    assert [(w.app, j.verdict.value) for w, j in verdicts.items()] == [
        ("code", "on_task"),
        ("firefox", "off_task"),
    ]
    [episode] = db.episodes("c1")
    assert (episode.app, episode.answer.value) == ("firefox", "back")
    assert db.drift_summaries(["c1"]) == {"c1": (1, 0.75)}
    arrive(2, note="a correction from an older AntiDrift")  # no evidence: all of it stays
    assert len(db.judgements("c1")) == 2 and db.drift_summaries(["c1"]) == {"c1": (1, 0.75)}
    assert db.history()[0].note == "a correction from an older AntiDrift"
    many = [["app", f"window {n}", "app", 1.0] for n in range(MAX_WINDOWS + 50)]
    arrive(3, windows=many, summary=None)
    assert len(db.place_time("c1", until)) == MAX_WINDOWS and db.drift_summaries(["c1"]) == {}
    with change(db):
        db.store.sync_import(OTHER, [Incoming("commitment:c1", stamp(4), None)], "s")
    assert db.place_time("c1", until) == {} and db.judgements("c1") == {}
