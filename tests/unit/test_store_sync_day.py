"""The store's side of one day on every machine (store/sync_day.py, day_tables.py; a record
checked by core/day.py) and of the evidence a commitment's record carries
(store/sync_evidence.py): each change of an item waits in the outbox, another machine's item
takes its place by its key, the later stamp wins, a change made here and not sent wins, a
removal never takes an item started here, and an item whose commitment ran elsewhere leaves
the queue; a record's verdicts, episodes, figures and time per window are kept for another
machine's commitment, bounded, and a record without them changes none of them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from antidrift.core.day import MAX_STORED, DayItem, item_of, record_of
from antidrift.core.domain import Commitment, Outcome, RuntimeState
from antidrift.core.errors import ValidationError
from antidrift.core.ports import Incoming
from antidrift.store.sync_evidence import MAX_WINDOWS
from tests.support.records import ended
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
        taken, refused = db.store.sync_import_day(list(records))
    assert refused == 0
    return taken


def sent(db) -> None:
    with change(db):
        db.store.sync_sent(10**9, [])  # the outbox went to the folder


def queue(db) -> list[str]:
    return [i.id for i in db.day_queue()]


def outbox(db) -> list[str]:
    return [ref for _, kind, ref in db.sync_outbox() if kind == "day_item"]


def started_here(db, item_id: str, outcome=None) -> None:
    """A commitment made here from the item (running, or ended with `outcome`)."""
    c = Commitment("c-" + item_id, "do it", "done", 1500, AT, AT + timedelta(minutes=25))
    ended = {"ended_at": AT + timedelta(minutes=25), "outcome": outcome} if outcome else {}
    state = RuntimeState.LOCKED if outcome else RuntimeState.ACTIVE
    db.save(state, replace(c, day_item_id=item_id, **ended))


UUID = "0b6a3c1e-52f4-4d0e-9a51-3f7b2d9c8e10"  # as an item made here is named


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
    good = record_of(item(UUID, "i", started_at=AT))
    assert item_of(UUID, good) == item(UUID, "i", started_at=AT)
    with pytest.raises(ValidationError):
        item_of(UUID, {**good, field: value})


@pytest.mark.parametrize(
    "item_id",
    ["a", UUID.upper(), UUID + "/delete", UUID.replace("-", ""), UUID + "0" * 100, f" {UUID}"],
)
def test_a_day_item_record_is_named_by_a_uuid_as_an_item_made_here(item_id):
    """Else the routes could never move or delete it (an id with a `/`, or a long one)."""
    with pytest.raises(ValidationError):
        item_of(item_id, record_of(item(item_id, "i")))


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


def test_an_item_started_here_keeps_its_start_against_an_edit_that_did_not_know_of_it(db):
    """Issue 43 item 5: another machine moves (then deletes) an item this one started, with
    later stamps: the start stands here, the item's record goes out again (so it wins
    there too), and the day's end still counts it."""
    with change(db):
        db.store.add_day_item(item("a", "i"))
        db.store.add_day_item(item("b", "k"))
        db.store.start_day_item("a", AT)
    started_here(db, "a")  # the commitment running here
    sent(db)
    assert take(db, theirs("a", 5, "m")) == 1  # a move: not started, there
    assert db.day_item("a").started_at == AT and db.day_item("a").order == "m"
    assert queue(db) == ["b"] and outbox(db) == ["a"]  # it goes out again, started
    sent(db)
    assert take(db, Incoming("day_item:a", stamp(6), None)) == 1  # then a removal
    assert db.day_item("a").started_at == AT and outbox(db) == ["a"]
    assert sorted(db.day_records(date(2026, 3, 2))) == [
        (date(2026, 3, 2), False, None),
        (date(2026, 3, 2), True, None),
    ]
    sent(db)
    assert take(db, theirs("a", 7, "m", started_at=AT)) == 1  # started there too: both stand
    assert outbox(db) == []
    # A start that came from another machine is theirs to keep: put back there, it is back.
    assert take(db, theirs("b", 8, "k", started_at=AT)) == 1 and queue(db) == []
    assert take(db, theirs("b", 9, "k")) == 1 and queue(db) == ["b"] and outbox(db) == []


def test_queued_is_one_definition_for_a_removal_a_delete_and_the_carrying_over(db):
    """An item whose commitment (from another machine) met or missed is out of the queue
    though its row says not started: no removal, delete or carrying over takes it."""
    earlier = item("a", "i", day=date(2026, 3, 1))
    with change(db):
        db.store.add_day_item(earlier)
        db.store.add_day_item(item("b", "k", day=date(2026, 3, 1)))
    started_here(db, "a", outcome=Outcome.MET)  # or a commitment from elsewhere: the same
    with change(db):
        db.store.unstart_day_item("a")  # its row as an edit that did not know of it left it
    sent(db)
    assert queue(db) == ["b"]
    with change(db):
        assert db.store.carry_day_items(date(2026, 3, 2)) == 1  # b alone
    assert db.day_item("a").day == date(2026, 3, 1) and not db.day_item("a").carried
    assert db.day_item("b").carried
    with change(db):
        assert db.store.delete_day_item("a") is False
    assert take(db, Incoming("day_item:a", stamp(5), None)) == 1
    assert db.day_item("a") is not None
    assert (date(2026, 3, 1), True, "met") in db.day_records(date(2026, 3, 1))


def test_items_not_started_are_kept_up_to_a_bound_and_the_rest_refused(db):
    with change(db):
        db.store.add_day_item(item("mine", "1"))
        db.store.add_day_item(item("going", "2"))
    sent(db)
    many = [theirs(f"x{n:04d}", 5, f"h{n:04d}") for n in range(MAX_STORED)]
    with change(db):
        assert db.store.sync_import_day(many) == (MAX_STORED - 2, 2)
    assert len(db.day_queue()) == MAX_STORED
    with change(db):  # an edit of one kept, a removal, then a new one in its room; and more
        taken = db.store.sync_import_day(
            [
                theirs("x0000", 6, "z"),
                Incoming("day_item:going", stamp(6), None),
                theirs("new", 6, "zz"),
                theirs("more", 6, "zzz"),
                # Started elsewhere: not queued, but the day holds MAX_STORED items already.
                theirs("started", 6, "zzzz", started_at=AT),
            ]
        )
    assert taken == (3, 2)
    assert len(db.day_queue()) == MAX_STORED and db.day_queue()[-1].id == "new"
    assert db.day_item("more") is None and db.day_item("started") is None
    # Started items of another day are bounded by that day's own items, not this one's.
    other_day = theirs("started-then", 7, "a", started_at=AT, day=date(2026, 2, 1))
    assert take(db, other_day) == 1
    with change(db):  # however many there are, a read of the queue is bounded
        db.store.add_day_item(item("one more", ""))
    assert len(db.day_queue()) == MAX_STORED and db.day_item("one more") is not None


def test_a_batch_reads_the_items_it_holds_once_and_no_record_scans_the_table(db):
    """S2: an import's cost grows with its records' own writes, never with the table."""
    with change(db):
        db.store.add_day_item(item("mine", "1"))
    sent(db)
    said: list[str] = []
    db.store._writer.set_trace_callback(said.append)
    try:
        assert take(db, *[theirs(f"x{n:02d}", 5, f"h{n:02d}") for n in range(40)]) == 40
    finally:
        db.store._writer.set_trace_callback(None)
    reads = [sql for sql in said if sql.lstrip().upper().startswith("SELECT")]
    # The kept stamps, the outbox, the items, their count, the count of their days' items.
    assert len(reads) <= 5, reads


def test_an_item_whose_commitment_ended_elsewhere_leaves_the_queue(db):
    with change(db):
        db.store.add_day_item(item("a", "i"))
    sent(db)
    body = ended("c1", OTHER, "laptop", day_item_id="a")  # started there from the same item
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
    body = ended("c1", OTHER, "laptop")

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
    arrive(4, summary=[2, 0.5, 0.0])  # one part alone is kept too
    assert db.drift_summaries(["c1"]) == {"c1": (2, 0.5)}
    with change(db):
        db.store.sync_import(OTHER, [Incoming("commitment:c1", stamp(5), None)], "s")
    assert db.place_time("c1", until) == {} and db.judgements("c1") == {}
