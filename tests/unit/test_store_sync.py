"""The store's side of sync (store/sync_tables.py): what a record from another machine may
change here, and what it may never — a running commitment, this machine's own commitments and
their evidence — and that a damaged record is refused alone, never crashing the import."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.ports import Incoming
from tests.fakes import START
from tests.support.records import ended
from tests.support.store import change, committing, run

OTHER = "abcdefghijklmnopqrstuvwxyz"


@pytest.fixture
def db(tmp_path):
    s = committing(tmp_path / "antidrift.sqlite3")
    yield s
    s.close()


def record(cid: str, hlc: str = "000001000000000000-000000-" + OTHER, **body) -> Incoming:
    base = ended(cid, OTHER, "desk", actual_secs=1500, apps=[["code", 1500.0]])
    return Incoming(f"commitment:{cid}", hlc, {**base, **body})


def take(db, *records: Incoming) -> tuple[int, list[str]]:
    with change(db):
        return db.store.sync_import(OTHER, list(records), "sha")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("started_at", "soon"),
        ("ended_at", "2026-03-02T09:25:00"),  # no offset: no time of any machine
        ("ended_at", "2026-03-02T08:00:00+00:00"),  # before it started
        ("timebox_secs", None),
        ("enforce", "explode"),
        ("outcome", "maybe"),
    ],
)
def test_a_damaged_record_is_refused_alone_and_the_others_are_taken(db, field, value):
    taken, refused = take(db, record("bad", **{field: value}), record("good"))
    assert taken == 1 and len(refused) == 1 and "bad" not in refused[0]
    assert [c.id for c in db.history()] == ["good"]
    # A fixed copy of the refused one is taken later (its stamp was not kept).
    assert take(db, record("bad", hlc="000002000000000000-000000-" + OTHER))[0] == 1


def test_a_commitment_made_here_stays_this_machine_s_whoever_corrects_it(db):
    mine = run(db, "mine", samples=[("code", "x", 0), ("firefox", "y", 600)])
    with change(db):
        db.store.sync_sent(10**9, [])  # sent: nothing of it waits here
    apps = db.app_totals()
    fixed = record("mine", outcome="missed", note="late")  # claims another machine made it
    assert take(db, fixed)[0] == 1
    [row] = db.history()
    assert (row.outcome, row.note) == (Outcome.MISSED, "late")
    assert (row.device_id, row.device) == (None, None)  # still made here
    assert db.app_totals() == apps and len(db.samples(mine.id)) == 2


def test_a_removal_never_touches_a_running_commitment(db):
    running = Commitment("run", "Write", "Done", 1500, START, START + timedelta(minutes=25))
    db.save(RuntimeState.ACTIVE, running)
    db.add_sample("run", WindowSample("code", "x", START))
    assert take(db, Incoming("commitment:run", "000001000000000000-000000-" + OTHER, None))
    assert len(db.samples("run")) == 1
    assert db.load().commitment.id == "run"
    assert take(db, record("run", hlc="000002000000000000-000000-" + OTHER))  # nor a record
    assert db.load().commitment.outcome is None


def test_a_change_made_here_and_not_sent_is_not_undone_by_an_import(db):
    run(db, "c1")
    db.correct("c1", Outcome.MISSED, "mine")  # its own change: it waits in the outbox
    assert take(db, record("c1", note="theirs"))[0] == 0
    assert db.history()[0].note == "mine"
