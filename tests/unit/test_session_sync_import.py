"""The commitments of another machine's segment taken in (session/sync_import.py): in the
order of their ids when each is in the segment once (a few pages of the store's indexes a
change, S2), yet what was refused is said as the segment's own order has it, and a segment
that holds a commitment twice is taken in its own order."""

from __future__ import annotations

import sqlite3

import pytest

from antidrift.session.sync_import import BATCH, Importer
from antidrift.session.sync_settings import SharedSettings
from antidrift.session.unit_of_work import UnitOfWork
from antidrift.store.sqlite import SQLiteStore
from antidrift.sync import Arrived, Stamp, SyncRecord
from tests.support.records import ended

OTHER = "abcdefghijklmnopqrstuvwxyz"
BAD = {  # a field made bad, and how the store says it
    "started_at": ("soon", "a commitment record's started_at is not a time"),
    "outcome": ("maybe", "a commitment record has no outcome"),
    "enforce": ("explode", "a commitment record holds a value this machine does not know"),
    "timebox_secs": (None, "a commitment record has no timebox_secs"),
    "note": (7, "a commitment record's note is not text"),
}


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "antidrift.sqlite3")
    yield s
    s.close()


def commitment(cid: str, ms: int = 1, **changed) -> SyncRecord:
    body = ended(cid, OTHER, "desk", apps=[["code", 1500.0]], **changed)
    return SyncRecord(OTHER, f"commitment:{cid}", Stamp(ms, 0, OTHER), "commitment", body)


def take(store, *records: SyncRecord):
    work = UnitOfWork(store)
    importer = Importer(store, work, "thismachine", SharedSettings(store, work, None))
    return importer.take(Arrived(OTHER, "00000001-aaaaaaaa.seg", "sha", tuple(records)))


def test_the_refused_are_said_in_the_segments_order_three_of_each_batch(store):
    # Ids that sort the other way round from the segment: its first batch goes in last.
    spoilt = {0: "started_at", 1: "outcome", 2: "enforce", 3: "timebox_secs", 4: "note"}
    spoilt |= {BATCH + 50: "note", BATCH + 51: "started_at", 2 * BATCH + 49: "outcome"}
    records = [
        commitment(f"c{999 - n:04d}", **({spoilt[n]: BAD[spoilt[n]][0]} if n in spoilt else {}))
        for n in range(2 * BATCH + 50)
    ]
    skipped = take(store, *records)
    # The segment's first batch: its first three; the second: both; the third: its one.
    said = [0, 1, 2, BATCH + 50, BATCH + 51, 2 * BATCH + 49]
    # (each reason once: the second batch's "note" and "started_at" were said in the first)
    assert [s.why for s in skipped] == list(dict.fromkeys(BAD[spoilt[n]][1] for n in said))
    assert store.commitments_by_device() == {OTHER: len(records) - len(spoilt)}


def test_a_commitment_twice_in_a_segment_is_taken_in_the_segments_order(store):
    # In a batch of its own the older is taken, then the newer one (damaged) is refused; in
    # the order of ids they would meet in one batch, and neither would be.
    filler = [commitment(f"f{n:04d}") for n in range(BATCH)]
    newer = commitment("same", ms=2, outcome="maybe")
    skipped = take(store, commitment("same", ms=1), *filler[1:], newer, filler[0])
    assert [s.why for s in skipped] == [BAD["outcome"][1]]
    assert store.commitments_by_device() == {OTHER: BATCH + 1}


def test_a_segment_whose_evidence_the_store_refuses_waits_and_is_read_again(store, monkeypatch):
    """Evidence the store cannot take (here: the disk) is said, and its segment is not marked
    taken: nothing of it is lost, the next look reads it again and takes it whole."""
    cid = "c0001"
    evidence = SyncRecord(
        OTHER,
        f"evidence:{cid}:{OTHER}",
        Stamp(3, 0, OTHER),
        "evidence",
        {"commitment_id": cid, "device": "desk", "windows": [["code", "intro.md", "", 60.0]]},
    )
    real = store.sync_import_evidence

    def full(records):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "sync_import_evidence", full)
    skipped = take(store, commitment(cid), evidence)
    assert [s.why for s in skipped] == ["could not be imported; it waits"]
    assert "sha" not in store.imported_segments()
    monkeypatch.setattr(store, "sync_import_evidence", real)
    assert take(store, commitment(cid), evidence) == []
    assert "sha" in store.imported_segments()
    assert store.commitments_by_device() == {OTHER: 1}


def test_a_segment_of_many_bad_records_says_each_reason_once(store):
    """Refused records are said by reason, once each: a hostile segment of thousands of bad
    items, rules or commitments is a few lines on /sync.json, not one a record."""
    rules = [
        SyncRecord(OTHER, f"rule:r{n}", Stamp(1, n, OTHER), "rule", {"app": ["x"]})
        for n in range(300)
    ]
    items = [
        SyncRecord(OTHER, f"day_item:d{n}", Stamp(1, n, OTHER), "day_item", {"id": "?"})
        for n in range(300)
    ]
    spoilt = [commitment(f"c{n:04d}", outcome="maybe") for n in range(3 * BATCH)]
    skipped = take(store, *rules, *items, *spoilt)
    whys = [s.why for s in skipped]
    assert len(whys) == len(set(whys)) == 3, whys


def test_evidence_the_store_will_never_take_is_refused_and_the_rest_goes_on(store, monkeypatch):
    """Not the disk but the records (a constraint): that evidence is said refused, and the
    segment's commitments are taken and it is marked (it would otherwise wait for ever)."""
    evidence = SyncRecord(
        OTHER,
        f"evidence:c0001:{OTHER}",
        Stamp(3, 0, OTHER),
        "evidence",
        {"commitment_id": "c0001", "device": "desk"},
    )

    def constraint(records):
        raise sqlite3.IntegrityError("CHECK constraint failed")

    monkeypatch.setattr(store, "sync_import_evidence", constraint)
    skipped = take(store, commitment("c0001"), evidence)
    assert [s.why for s in skipped] == ["holds evidence refused here"]
    assert "sha" in store.imported_segments()
    assert store.commitments_by_device() == {OTHER: 1}
