"""Evidence by device in the store (store/evidence_tables.py, Guard here too): what another
machine watched for a commitment, kept per (commitment, machine) beside the commitment's own
evidence and never in it; taken once, replaced by a later record, bounded by the one check of
what a record carries; its figures worked out here; gone with its commitment. And this
machine's own evidence for another's commitment, written in the change that made it, kept
across a restart, and published in the shape the other machines take."""

from __future__ import annotations

import pytest

from antidrift.core.device_evidence import MAX_DEVICES, DeviceFigures, combined, evidence_key
from antidrift.core.drift_records import Episode, Judgement, Source, Verdict, Window
from antidrift.core.ports import Incoming
from antidrift.session.readmodel import ReadModel
from antidrift.store import sync_evidence
from tests.fakes import START
from tests.support.store import change, committing, run

LAPTOP = "laptop0id"
STAMP = "000001000000000000-000000-" + LAPTOP
LATER = "000002000000000000-000000-" + LAPTOP


@pytest.fixture
def db(tmp_path):
    s = committing(tmp_path / "antidrift.sqlite3")
    yield s
    s.close()


def evidence(cid: str, device: str = LAPTOP, hlc: str = STAMP, **body) -> Incoming:
    """A machine's evidence record: two minutes on task and one off by its rules, one drift
    episode, and a summary that claims what its rows do not say."""
    base = {
        "commitment_id": cid,
        "owner_id": "desk0id",
        "device": "laptop",
        "windows": [["code", "intro.md", "code", 120.0], ["firefox", "Cats", "youtube.com", 60.0]],
        "verdicts": [
            ["code", "intro.md", "", "on_task", "your rule: code is always on task", "rule"],
            ["firefox", "Cats", "youtube.com", "off_task", "your rule: …", "rule"],
        ],
        "episodes": [
            {"number": 1, "app": "firefox", "title": "Cats", "reason": "your rule: …",
             "started_at": "2026-03-02T09:02:00+00:00", "nudged_at": "2026-03-02T09:02:00+00:00",
             "ended_at": "2026-03-02T09:03:00+00:00", "answer": None},
        ],
        "summary": [9, 0.01, 0.0],
    }  # fmt: skip
    return Incoming(f"evidence:{cid}:{device}", hlc, {**base, **body})


def take(db, *records: Incoming) -> tuple[int, list[str]]:
    with change(db):
        return db.store.sync_import_evidence(list(records))


def kept(db, cid: str):
    return db.store.device_evidence_of([cid]).get(cid, [])


def test_a_machines_evidence_is_kept_by_device_beside_the_own_and_taken_once(db):
    mine = run(db, "mine", samples=[("code", "x", 0), ("code", "x", 60)], minutes=2)
    db.save_judgement("mine", Window("code", "x"), Judgement(Verdict.ON_TASK, "", Source.RULE))
    db.save_drift_summary("mine", 0, 1.0)
    own = (db.judgements("mine"), db.place_time("mine", mine.ended_at), db.episodes("mine"))
    assert take(db, evidence("mine")) == (1, [])
    assert take(db, evidence("mine")) == (0, [])  # the same record again: nothing
    [laptop] = kept(db, "mine")
    assert (laptop.device_id, laptop.device) == (LAPTOP, "laptop")
    assert laptop.windows == (
        ("code", "intro.md", "code", 120.0),
        ("firefox", "Cats", "youtube.com", 60.0),
    )
    assert [e.number for e in laptop.episodes] == [1]
    # Its figures are worked out from its rows, not from what its summary claims.
    assert laptop.figures == DeviceFigures(1, 120 / 180, 0.0, 180.0)
    # The commitment's own evidence is untouched; its figures take the laptop's in,
    # time-weighted: 120 s judged here (all on task) beside 180 s there.
    assert (db.judgements("mine"), db.place_time("mine", mine.ended_at), db.episodes("mine")) == own
    assert db.drift_summaries(["mine"]) == {"mine": (0, 1.0)}
    assert ReadModel(db.store).drift_summaries(["mine"]) == {"mine": (1, 240 / 300)}


def test_a_later_record_of_a_machine_replaces_its_earlier_one_and_an_older_changes_nothing(db):
    take(db, evidence("c-1"))
    later = evidence("c-1", hlc=LATER, windows=[["code", "intro.md", "code", 600.0]], episodes=[])
    assert take(db, later)[0] == 1
    assert take(db, evidence("c-1"))[0] == 0  # the earlier one, delivered late
    [laptop] = kept(db, "c-1")
    assert (laptop.windows, laptop.episodes) == ((("code", "intro.md", "code", 600.0),), ())
    assert laptop.figures == DeviceFigures(0, 1.0, 0.0, 600.0)
    # Another machine's is its own; a removal of one machine's leaves the other's.
    take(db, evidence("c-1", device="phone0id", hlc="000001000000000000-000000-phone0id"))
    assert take(db, Incoming(f"evidence:c-1:{LAPTOP}", "000003000000000000-000000-x", None))[0]
    assert [e.device_id for e in kept(db, "c-1")] == ["phone0id"]


def test_the_stamps_of_a_commitments_evidence_move_with_each_record_and_its_alone(db):
    """What an open review reads each second to see new evidence (web/review_evidence.py)."""
    stamps = db.store.device_evidence_stamps
    assert stamps("c-1") == ()
    take(db, evidence("c-1"), evidence("c-1-2"), evidence("c-12"))  # ids one is the start of
    assert stamps("c-1") == ((f"evidence:c-1:{LAPTOP}", STAMP),)
    take(db, evidence("c-1", hlc=LATER))
    phone = "000001000000000000-000000-phone0id"
    take(db, evidence("c-1", device="phone0id", hlc=phone))
    assert stamps("c-1") == (
        (f"evidence:c-1:{LAPTOP}", LATER),
        ("evidence:c-1:phone0id", phone),
    )
    assert stamps("c-12") == ((f"evidence:c-12:{LAPTOP}", STAMP),)


def test_what_a_record_carries_is_bounded_and_checked_by_the_one_check(db, monkeypatch):
    many = [[f"app{n}", "t" * 5000, f"app{n}", 1.0] for n in range(300)]
    bad = [["code", "x", "code", -1], ["code", "x", "code", True], ["code", "x", 5.0], "code"]
    assert take(db, evidence("c-1", windows=bad + many))[0] == 1
    [laptop] = kept(db, "c-1")
    assert len(laptop.windows) == sync_evidence.MAX_WINDOWS - len(bad)  # the bad ones left out
    assert {len(w[1]) for w in laptop.windows} == {sync_evidence.TEXT}
    # At most MAX_DEVICES machines' evidence per commitment: one more is said and waits.
    for n in range(1, MAX_DEVICES):
        take(db, evidence("c-1", device=f"m{n}", hlc=f"000001000000000000-000000-m{n}"))
    taken, refused = take(db, evidence("c-1", device="extra", hlc="0001-extra"))
    assert (taken, refused) == (0, [f"holds evidence of more than {MAX_DEVICES} machines"])
    assert len(kept(db, "c-1")) == MAX_DEVICES and db.sync_stamp("evidence:c-1:extra") is None
    assert evidence_key("evidence:c-1:extra") == ("c-1", "extra")
    for odd in ("evidence:c-1", "evidence::m1", "evidence:c 1:m1", "commitment:c-1:m1"):
        assert evidence_key(odd) is None


def test_a_list_or_an_object_where_a_name_belongs_is_left_out_never_raised(db):
    """A verdict, a source or an answer that is a list or an object (which no enum can be
    looked up by) is one bad entry: left out, the rest taken, nothing raised into the
    import (which would stop every later segment)."""
    good = evidence("c-1").body
    odd_verdicts = [
        ["firefox", "Cats", "", ["off_task"], "why", "rule"],
        ["firefox", "Cats", "", "off_task", "why", {"rule": 1}],
        *good["verdicts"],
    ]
    odd_episode = {**good["episodes"][0], "number": 2, "answer": ["stay"]}
    record = evidence("c-1", verdicts=odd_verdicts, episodes=[*good["episodes"], odd_episode])
    assert take(db, record)[0] == 1
    [laptop] = kept(db, "c-1")
    assert len(laptop.verdicts) == len(good["verdicts"])
    assert [e.number for e in laptop.episodes] == [1]


def test_removing_the_commitment_removes_every_machines_evidence_for_it(db):
    run(db, "mine", samples=[("code", "x", 0)])
    take(db, evidence("mine"))
    with change(db):
        db.store.sync_sent(0, [("commitment:mine", STAMP)])  # sent: known to the others
    assert db.delete("mine")
    assert kept(db, "mine") == []
    assert take(db, evidence("mine", hlc=LATER))[0] == 1  # arriving after: kept nowhere
    assert kept(db, "mine") == []
    # Another machine's commitment removed by its record: its evidence from every machine goes.
    take(db, evidence("theirs"))
    with change(db):
        db.store.sync_import("desk0id", [Incoming("commitment:theirs", LATER, None)], "sha")
    assert kept(db, "theirs") == []


def test_guarding_here_is_kept_across_a_restart_and_published_as_the_others_take_it(tmp_path):
    first = committing(tmp_path / "here.sqlite3")
    window = Window("firefox", "Cats", "youtube.com")
    with change(first):
        first.store.followed_begin("c-desk", "desk0id")
        first.store.followed_seen("c-desk", 2, ("firefox", "Cats", "youtube.com", 60.0))
        first.store.followed_verdict(
            "c-desk", window, Judgement(Verdict.OFF_TASK, "rule", Source.RULE)
        )
        first.store.followed_episode("c-desk", Episode(1, START, START, "firefox", "Cats", "rule"))
    with pytest.raises(RuntimeError), change(first):
        first.store.followed_seen("c-desk", 3, ("code", "intro.md", "code", 30.0))
        raise RuntimeError("the change failed: nothing of it is kept")
    assert first.store.followed_unsent() == ["c-desk"]
    first.close()
    again = committing(tmp_path / "here.sqlite3")  # a restart
    found = again.store.followed_kept("c-desk")
    assert (found.samples, found.windows) == (2, (("firefox", "Cats", "youtube.com", 60.0),))
    with change(again):
        again.store.followed_publish("c-desk")  # the outbox has it; its figures are worked out
    assert again.store.followed_unsent() == [] and again.sync_outbox()[-1][1:] == (
        "evidence",
        "c-desk",
    )
    body = again.store.evidence_body("c-desk")
    assert body["summary"] == [1, 0.0, 0.0] and body["owner_id"] == "desk0id"
    # Its rows gone between the record's two reads (the history deleted meanwhile): a
    # removal, not an error in the sender.
    store_type = type(again.store)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_type, "_by_device", lambda self, ids, device=None: {})
        assert again.store.evidence_body("c-desk") is None
    other = committing(tmp_path / "desk.sqlite3")
    assert take(other, Incoming("evidence:c-desk:here0id", STAMP, {**body, "device": "here"}))[0]
    [taken] = kept(other, "c-desk")
    assert (taken.windows, taken.figures) == (found.windows, DeviceFigures(1, 0.0, 0.0, 60.0))
    again.close()
    other.close()


def test_a_window_whose_time_here_was_all_taken_back_leaves_the_record(db):
    """Away from the keyboard while guarding: the time since input stopped is no window's,
    and a window seen only then is in no record."""
    with change(db):
        db.store.followed_begin("c-desk", "desk0id")
        db.store.followed_seen("c-desk", 1, ("code", "intro.md", "code", 30.0))
        db.store.followed_seen("c-desk", 2, ("firefox", "Cats", "youtube.com", 60.0))
        db.store.followed_seen("c-desk", 2, ("firefox", "Cats", "youtube.com", 0.0))
    assert db.store.evidence_body("c-desk")["windows"] == [["code", "intro.md", "code", 30.0]]
    assert db.store.followed_kept("c-desk").windows == (("code", "intro.md", "code", 30.0),)


def test_the_figures_combine_time_weighted_over_every_machines_judged_time():
    laptop = DeviceFigures(2, 0.25, 30.0, 480.0)
    assert combined((0, 1.0), 720.0, [laptop]) == (2, pytest.approx(840 / 1200))
    assert combined(None, 0.0, [laptop]) == (2, 0.25)  # not watched here: the laptop's alone
    assert combined((1, 0.5), 600.0, []) == (1, 0.5)  # no other machine: as it was
    nothing = DeviceFigures(1, None, 0.0, 0.0)  # judged nothing there: weighs nothing
    assert combined((0, 0.8), 300.0, [nothing]) == (1, 0.8)
    assert combined(None, 0.0, [nothing]) == (1, None)


def test_cut_to_its_bound_a_record_keeps_the_verdicts_of_the_windows_it_sends():
    """More windows and verdicts than a record carries: the longest windows go, and their
    verdicts with them (the first-judged ones would leave a long window 'not judged')."""
    n = sync_evidence.MAX_WINDOWS + 50
    windows = {(f"app{i}", "t", ""): float(i) for i in range(n)}  # the longest: the last
    verdicts = [[f"app{i}", "t", "", "on_task", "why", "rule"] for i in range(n)]
    body = sync_evidence.evidence_of(windows, verdicts, [], None)
    sent = {w[0] for w in body["windows"]}
    assert len(body["verdicts"]) == sync_evidence.MAX_VERDICTS
    assert {v[0] for v in body["verdicts"]} == sent
