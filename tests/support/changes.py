"""Every command that changes what the session keeps, from the state it needs, over a real
SQLite store: the list the one-transaction proofs walk (tests/integration/
test_one_transaction.py), each command at each of its writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from antidrift.core.day import ItemFields, record_of
from antidrift.core.rhythm import BreakSettings
from antidrift.drift.policy import DriftSettings
from antidrift.session.drafts import Draft
from antidrift.session.sync_import import Importer
from antidrift.store.sqlite import SQLiteStore
from antidrift.sync import SyncRecord
from antidrift.sync.hlc import Stamp
from tests.fakes import (
    DEFAULT_PROPOSAL,
    FakeClock,
    FakeCoach,
    FakeJudge,
    RecordingNotifier,
    wait_until,
)
from tests.support.session import build_controller

LONG = "x" * 490  # near the longest text a plan field takes: writes that need room
SQLITE_IOERR = 10
_WRITES = ("INSERT", "UPDATE", "DELETE", "COMMIT", "WITH")  # WITH … INSERT (time per app)


class FailingWrites:
    """The store's sqlite3 connection, failing its `fail_at`-th write (an INSERT, UPDATE,
    DELETE or the COMMIT) with a disk I/O error, as a failing disk would; counts them."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.count = 0
        self.fail_at: int | None = None

    def __getattr__(self, name: str):
        return getattr(self._db, name)

    def execute(self, sql: str, parameters=()):
        self._write(sql)
        return self._db.execute(sql, parameters)

    def executemany(self, sql: str, parameters):
        self._write(sql)  # many rows, one statement: one write
        return self._db.executemany(sql, parameters)

    def _write(self, sql: str) -> None:
        if sql.lstrip()[:6].upper().startswith(_WRITES):
            self.count += 1
            if self.count == self.fail_at:
                failed = sqlite3.OperationalError("disk I/O error")
                failed.sqlite_errorcode = SQLITE_IOERR
                raise failed


@dataclass
class Session:
    """One controller over a fresh store, with what it says to the world recorded."""

    store: SQLiteStore
    controller: object
    clock: FakeClock
    judge: FakeJudge
    notifier: RecordingNotifier
    writes: FailingWrites
    heard: list[int]

    def close(self) -> None:
        self.judge.release_all()
        self.controller.shutdown()
        self.store.close()


@contextmanager
def session(path: Path, *, auto_break: bool = False):
    """A controller wired as the server wires it, the guard on (a rule-decided window needs
    no judge), over a fresh database at `path`."""
    clock = FakeClock()
    store = SQLiteStore(path)
    writes = FailingWrites(store._writer._db)
    store._writer._db = writes
    judge, notifier = FakeJudge(gated=True), RecordingNotifier()
    coach = FakeCoach(*[DEFAULT_PROPOSAL] * 4)
    controller = build_controller(
        store, clock, coach=coach, judge=judge, notifier=notifier, drift=DriftSettings(),
        breaks=BreakSettings(auto=auto_break),
    )  # fmt: skip
    heard: list[int] = []
    controller.subscribe(lambda: heard.append(1))
    s = Session(store, controller, clock, judge, notifier, writes, heard)
    try:
        yield s
    finally:
        s.close()


# -- the states a command needs --------------------------------------------------------------


def planning(s: Session) -> None:
    s.controller.enter_planning()
    s.controller.drafts.save({"next_action": "Write the intro", "timebox_minutes": "25"})


def proposed(s: Session) -> None:
    """Planning, with the coach's proposal on the page."""
    planning(s)
    s.controller.coaching.request("write the intro")
    wait_until(lambda: s.controller.snapshot().coach.status == "ready")


def running(s: Session) -> None:
    planning(s)
    s.controller.start_manual_commitment("Write the intro", "Intro in the doc", 25)
    s.clock.advance(30)
    s.controller.record_window("code", "intro.md")


def drifting(s: Session) -> None:
    s.controller.rules.add("slack", "", "off_task")
    running(s)
    s.controller.record_window("slack", "general")  # off task by the rule: no judge call
    s.clock.advance(61)  # past the grace


def nudged(s: Session) -> None:
    drifting(s)
    s.controller.drift_tick()  # an episode opens and the nudge goes out


def review(s: Session) -> None:
    running(s)
    s.controller.finish()


def ran_out(s: Session) -> None:
    running(s)
    s.clock.advance(25 * 60)
    s.controller.expire_if_due()


def ended(s: Session) -> None:
    review(s)
    s.controller.end("met", "Done")


def resting(s: Session) -> None:
    ended(s)
    s.controller.breaks.take()


def away(s: Session) -> None:
    running(s)
    s.clock.advance(4 * 60)
    s.controller.note_idle(4 * 60)


def back(s: Session) -> None:
    away(s)
    s.clock.advance(60)
    s.controller.note_idle(0)


def paused(s: Session) -> None:
    running(s)
    s.controller.pause()
    s.clock.advance(60)


def ruled(s: Session) -> None:
    s.controller.rules.add("slack", "", "off_task")


def none(s: Session) -> None:
    pass


def day_queued(s: Session, count: int = 3) -> None:
    s.controller.day.add_all([ItemFields(f"Item {n}", "", None) for n in range(count)])


def day_crowded(s: Session) -> None:
    """A full day whose keys leave no room between them (two machines gave them one key):
    a move spreads every key anew, 50 rows and 50 outbox rows."""
    day_queued(s, 50)
    with s.controller.work:
        for item in s.store.day_queue():
            s.store.move_day_item(item.id, "i")


def day_running(s: Session) -> None:
    """A commitment running from the day's first item, what the outbox held sent."""
    day_queued(s)
    first = s.store.day_queue()[0]
    s.controller.enter_planning(Draft.of_item(first))
    s.controller.start_manual_commitment(first.next_action, "Done", 25)
    with s.controller.work:
        s.store.sync_sent(10**9, [])


def _day_batch(s: Session) -> None:
    """Another machine's batch of the day: a new item, a move of the item started here
    (kept started, sent again), a removal of a queued one."""
    started = s.store.day_item(s.controller.snapshot().commitment.day_item_id)
    queued = s.store.day_queue()
    new = replace(queued[0], id="0b6a3c1e-52f4-4d0e-9a51-3f7b2d9c8e10", order="z")
    moved = replace(started, started_at=None, order="zz")

    def record(n: int, item_id: str, body: dict | None) -> SyncRecord:
        stamp = Stamp(1, n, "desk0id")
        return SyncRecord("desk0id", f"day_item:{item_id}", stamp, "day_item", body)

    records = [
        record(1, new.id, record_of(new)),
        record(2, moved.id, record_of(moved)),
        record(3, queued[-1].id, None),
    ]
    Importer(s.store, s.controller.work, "me0id", None)._day("devices/desk0id/1", records)


def day_proposed(s: Session) -> None:
    s.controller.coaching.coach.reset()  # the day's default answer, not the queued plans
    s.controller.day_plans.request("grant report, a PR")
    wait_until(lambda: s.controller.snapshot().day_plan.status == "ready")


# Another machine's running commitment, as its `now` is seen here (Guard here too).
DESK_NOW = {
    "device": "desk",
    "device_id": "desk0id",
    "state": "active",
    "commitment_id": "c-desk",
    "next_action": "Write the intro",
    "success_condition": "Intro in the doc",
    "paused": False,
}


def desk_seen(s: Session, now: dict | None = None) -> None:
    """The desk's commitment running (or as `now` says it), as its `now` is seen here."""
    seen = now or DESK_NOW
    s.controller.following.look = lambda device_id: seen if device_id == "desk0id" else None


def guarding(s: Session) -> None:
    """Guarding the desk's commitment here, a window seen for it."""
    ruled(s)
    desk_seen(s)
    s.controller.following.follow("desk0id")
    s.controller.record_window("code", "intro.md")
    s.clock.advance(30)


def guarding_drift(s: Session) -> None:
    guarding(s)
    s.controller.record_window("slack", "general")  # off task by the rule, kept here
    s.clock.advance(61)


def _last_id(s: Session) -> str:
    return s.store.history(1)[0].id


def _write_back(s: Session) -> None:
    with s.controller.writing_back(s.controller.snapshot().commitment.id, "done"):
        pass


@dataclass(frozen=True)
class Command:
    name: str
    setup: Callable[[Session], None]
    run: Callable[[Session], object]
    auto_break: bool = False


COMMANDS = [
    Command("plan", none, lambda s: s.controller.enter_planning()),
    Command("plan with Again's draft", none,
            lambda s: s.controller.enter_planning(Draft(LONG, LONG, LONG, "25"))),
    Command("plan from a break", resting, lambda s: s.controller.enter_planning()),
    Command("draft", planning, lambda s: s.controller.drafts.save({"intent": LONG})),
    Command("cancel planning", proposed, lambda s: s.controller.cancel_planning()),
    Command("sharpen", proposed, lambda s: s.controller.coaching.request(LONG[:200])),
    Command("start", proposed,
            lambda s: s.controller.start_manual_commitment(LONG, LONG, 25)),
    Command("start with the guard off", planning,
            lambda s: s.controller.start_manual_commitment("Write", "Done", 25, drift="off")),
    Command("window", running, lambda s: s.controller.record_window("code", LONG)),
    Command("window off task by a rule", lambda s: (ruled(s), running(s)),
            lambda s: s.controller.record_window("slack", "general")),
    Command("drift tick opens an episode", drifting, lambda s: s.controller.drift_tick()),
    Command("answer the drift guard", nudged,
            lambda s: s.controller.acknowledge_drift("on_task")),
    Command("pause", running, lambda s: s.controller.pause()),
    Command("resume", paused, lambda s: s.controller.resume()),
    Command("change the next action", drifting,
            lambda s: s.controller.change_next_action(LONG)),
    Command("more time", running, lambda s: s.controller.extend(5)),
    Command("more time after it ran out", ran_out, lambda s: s.controller.extend(5)),
    Command("timebox over", lambda s: (running(s), s.clock.advance(25 * 60)),
            lambda s: s.controller.expire_if_due()),
    Command("finish", drifting, lambda s: s.controller.finish()),
    Command("undo finish", review, lambda s: s.controller.undo_finish()),
    Command("discard", drifting, lambda s: s.controller.discard()),
    Command("end", review, lambda s: s.controller.end("met", LONG)),
    Command("end with the automatic break", review,
            lambda s: s.controller.end("missed", LONG), auto_break=True),
    Command("take a break", ended, lambda s: s.controller.breaks.take()),
    Command("end the break", resting, lambda s: s.controller.breaks.end()),
    Command("break over", lambda s: (resting(s), s.clock.advance(3600)),
            lambda s: s.controller.breaks.tick()),
    Command("away", lambda s: (running(s), s.clock.advance(4 * 60)),
            lambda s: s.controller.note_idle(4 * 60)),
    Command("back from away", lambda s: (away(s), s.clock.advance(60)),
            lambda s: s.controller.note_idle(0)),
    Command("count time away as a pause", back, lambda s: s.controller.credit_away()),
    Command("keep counting time away", back, lambda s: s.controller.dismiss_away()),
    Command("correct the history", ended,
            lambda s: s.controller.corrections.correct(_last_id(s), "missed", LONG)),
    Command("remove from the history", ended,
            lambda s: s.controller.corrections.remove(_last_id(s))),
    Command("add a rule", running,
            lambda s: s.controller.rules.add("slack", LONG[:200], "off_task")),
    Command("remove a rule", lambda s: (ruled(s), running(s)),
            lambda s: s.controller.rules.remove(s.store.rules()[0].id)),
    Command("claim the write-back", review, _write_back),
    Command("add all of the day's proposal", day_proposed,
            lambda s: s.controller.day_plans.use(every="1")),
    Command("add to the day", day_queued, lambda s: s.controller.day.add(LONG, LONG, "30")),
    Command("delete from the day", day_queued,
            lambda s: s.controller.day.delete(s.store.day_queue()[1].id)),
    Command("move in the day", day_queued,
            lambda s: s.controller.day.move(s.store.day_queue()[2].id, 0)),
    Command("move in the day, its keys spread anew", day_crowded,
            lambda s: s.controller.day.move(s.store.day_queue()[0].id, 2)),
    Command("clear the day", day_queued, lambda s: s.controller.day.clear()),
    Command("start the day's first item", lambda s: (day_queued(s), s.controller.enter_planning(
                Draft.of_item(s.store.day_queue()[0]))),
            lambda s: s.controller.start_manual_commitment("Item 0", "Done", 25)),
    Command("take another machine's batch of the day", day_running, _day_batch),
    Command("guard another machine's commitment here", lambda s: (ruled(s), desk_seen(s)),
            lambda s: s.controller.following.follow("desk0id")),
    Command("a window off task while guarding another's commitment", guarding,
            lambda s: s.controller.record_window("slack", "general")),
    Command("guarding: an hour's evidence to the folder",
            lambda s: (guarding_drift(s), s.clock.advance(3600)),
            lambda s: s.controller.following.tick()),
    Command("guarding: paused there", guarding_drift,
            lambda s: (desk_seen(s, {**DESK_NOW, "paused": True}),
                       s.controller.following.tick())),
    Command("guarding: away from the keyboard", lambda s: (guarding_drift(s), s.clock.advance(120)),
            lambda s: s.controller.note_idle(200)),
    Command("stop guarding", guarding_drift, lambda s: s.controller.following.stop()),
    Command("plan while guarding", guarding_drift, lambda s: s.controller.enter_planning()),
    Command("take a break while guarding", guarding_drift,
            lambda s: s.controller.breaks.take()),
]  # fmt: skip


def dump(path: Path) -> list[str]:
    """Every row of the database as another program reads it (committed rows only)."""
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()
