"""A realistic history written straight into a database: for browser tests and benchmarks."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from antidrift.core.domain import MAX_SAMPLE_SPAN, Commitment, Outcome, RuntimeState
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.store import change, committing

BASE = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
ACTIONS = [
    "Draft the intro of the quarterly report",
    "Fix the flaky login test",
    "Answer the three oldest support emails",
    "Review Sam's pull request on the importer",
    "Outline the talk for Thursday",
    "Write the migration for the invoices table",
    "Read chapter 4 and take notes",
    "Sketch the onboarding screens",
]
NOTES = ["", "", "", "Interrupted twice by chat.", "Easier than I thought.", "Needed more time."]
APPS = ["code", "firefox", "terminal", "slack", "thunderbird", "obsidian", "figma", "zoom"]
PLANS = [15, 25, 25, 30, 30, 45, 60, 90]


def seed_history(path: Path, count: int, *, samples_each: int = 6, seed: int = 7) -> None:
    """count ended commitments, newest last, each with a few window samples, in one go."""
    rng = random.Random(seed)
    store = committing(path)
    commitments, samples = [], []
    for i in range(count):
        planned = rng.choice(PLANS)
        started = BASE + timedelta(hours=3 * i, minutes=rng.randrange(60))
        minutes = planned * rng.uniform(0.5, 1.3)
        extended = 15 * math.ceil((minutes - planned) / 15) if minutes > planned else 0
        deadline = started + timedelta(minutes=planned + extended)
        took = timedelta(minutes=minutes)
        c = Commitment(
            id=f"seed-{i:06d}",
            next_action=rng.choice(ACTIONS),
            success_condition="It is done and saved",
            timebox_secs=planned * 60,
            started_at=started,
            deadline=deadline,
            ended_at=started + took,
            outcome="met" if rng.random() < 0.7 else "missed",
            note=rng.choice(NOTES),
            extended_secs=extended * 60,
        )
        commitments.append(c)
        step = min(took / max(samples_each, 1), MAX_SAMPLE_SPAN)
        for n in range(samples_each):
            at = started + step * n
            app = rng.choice(APPS[:3]) if rng.random() < 0.7 else rng.choice(APPS)
            samples.append((c.id, app, f"{app} window {n % 4}", at.isoformat(), at.timestamp()))
    _bulk(store, commitments, samples)
    store.rebuild_app_time()
    store.close()


def seed_review(path: Path, samples: int, *, distinct: int, seed: int = 11) -> None:
    """The server's current commitment in review, with `samples` window samples over
    `distinct` windows (the review view's heaviest case)."""
    rng = random.Random(seed)
    store = committing(path)
    started = BASE
    c = Commitment(
        "review-1",
        "Refactor the sampler",
        "Tests pass",
        480 * 60,
        started,
        started + timedelta(hours=8),
    )
    store.save(RuntimeState.ACTIVE, c)
    rows = []
    for n in range(samples):
        at = started + timedelta(seconds=n * 1.4)
        app = APPS[n % len(APPS)]
        rows.append(
            (c.id, app, f"{app} title {rng.randrange(distinct)}", at.isoformat(), at.timestamp())
        )
    _bulk(store, [], rows)
    store.save(RuntimeState.REVIEW, c.stopped(started + timedelta(seconds=samples * 1.4)))
    store.close()


def _bulk(store: SQLiteStore, commitments: list[Commitment], samples: list[tuple]) -> None:
    with change(store) as db:  # one transaction for thousands of rows
        _bulk_rows(db, commitments, samples)


def _bulk_rows(db, commitments: list[Commitment], samples: list[tuple]) -> None:
    db.executemany(
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome, note, extended_secs, actual_secs)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.id,
                c.next_action,
                c.success_condition,
                c.timebox_secs,
                c.started_at.isoformat(),
                c.deadline.isoformat(),
                c.ended_at.isoformat(),
                c.outcome,
                c.note,
                c.extended_secs,
                round((c.ended_at - c.started_at).total_seconds()),
            )
            for c in commitments
        ],
    )
    db.executemany(
        "INSERT INTO samples (commitment_id, app, title, at, at_epoch) VALUES (?, ?, ?, ?, ?)",
        samples,
    )


def seed_ended(store, count: int, *, note: str = "", action: str = "Task {i}") -> list[Commitment]:
    """count ended commitments, one an hour, the oldest first; 30 planned, 20 + i % 15 taken."""
    made, raw = [], getattr(store, "store", store)  # a Committing's own store
    with change(raw):
        for i in range(count):
            made.append(_ended(raw, i, note, action))
    return made


def _ended(store, i: int, note: str, action: str) -> Commitment:
    start = START + timedelta(hours=i)
    c = Commitment(
        f"c{i:04d}",
        action.format(i=i),
        "done",
        30 * 60,
        start,
        start + timedelta(minutes=30),
        ended_at=start + timedelta(minutes=20 + i % 11),
        outcome=Outcome.MET if i % 3 else Outcome.MISSED,
        note=note,
    )
    store.save(RuntimeState.LOCKED, c)
    return c
