"""S1–S3, sync at scale (issue 42): a machine joining a folder where five others wrote 10,000
commitments each imports them all (S2) in batches whose change never holds the write lock
long (S3), and from then on a look with nothing new costs almost nothing (S1).

The five machines' folders are written by the sync wing as the real ones write them (one
segment each, encrypted); the machine that joins is session/syncing.py over a real SQLite
store and unit of work, its passphrase at hand (`fast` key derivation: the KDF's cost is a
setting's, not sync's). Used by scripts/bench.py (`--only S1,S2,S3`).
"""

from __future__ import annotations

import statistics
import time
import uuid
from pathlib import Path

from antidrift.session.syncing import Syncing
from antidrift.session.unit_of_work import UnitOfWork
from antidrift.store.sqlite import SQLiteStore
from antidrift.sync import DeviceWriter, HybridClock, Keyring, SyncRecord, device_id, unlock

GOAL_S1 = "median ≤ 2 ms"
GOAL_S2 = "≤ 3 s"
GOAL_S3 = "≤ 50 ms"
PASSPHRASE = "a passphrase for the bench"
SIZES = {"full": (5, 10_000), "quick": (2, 300)}


class TimedWork:
    """The unit of work, each change's time from entering to leaving it kept."""

    def __init__(self, work: UnitOfWork) -> None:
        self._work, self.held = work, []

    def __enter__(self) -> UnitOfWork:
        self._began = time.perf_counter()
        return self._work.__enter__()

    def __exit__(self, *exc: object) -> None:
        try:
            self._work.__exit__(*exc)
        finally:
            self.held.append(time.perf_counter() - self._began)


def _write_machine(folder: Path, root: Path, index: int, count: int) -> None:
    data = root / f"machine-{index}"
    me = device_id(data)
    keys = Keyring(data)
    unlock(keys, folder, me, PASSPHRASE, fast=True)
    clock = HybridClock(me)
    writer = DeviceWriter(folder, data, me, keys.get(me), name=f"machine {index}")
    records = []
    for n in range(count):
        cid = str(uuid.uuid4())
        body = {
            "id": cid,
            "next_action": f"Write part {n} of the report",
            "success_condition": "The part is in the draft",
            "timebox_secs": 1500,
            "started_at": f"2026-11-{1 + n % 28:02d}T09:00:00+00:00",
            "deadline": f"2026-11-{1 + n % 28:02d}T09:25:00+00:00",
            "ended_at": f"2026-11-{1 + n % 28:02d}T09:25:00+00:00",
            "outcome": "met" if n % 3 else "missed",
            "note": "",
            "extended_secs": 0,
            "actual_secs": 1500,
            "paused_secs": 0,
            "away_secs": 0,
            "enforce": "off",
            "device_id": me,
            "device": f"machine {index}",
            "apps": [["code", 1200.0], ["firefox", 300.0]],
        }
        records.append(SyncRecord(me, f"commitment:{cid}", clock.now(), "commitment", body))
    writer.append(records)


def bench_sync(root: Path, mode: str) -> tuple[dict, dict, dict]:
    """S1, S2, S3 for `mode` ("full": five machines of 10,000; "quick": a sanity size)."""
    machines, count = SIZES[mode]
    root = root / "sync-bench"
    folder = root / "Sync"
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(machines):
        _write_machine(folder, root, index, count)
    data = root / "joining"
    store = SQLiteStore(data / "antidrift.sqlite3")
    try:
        work = TimedWork(UnitOfWork(store))
        sync = Syncing(store, work, data, folder, "joining", lambda: PASSPHRASE, fast=True)
        began = time.perf_counter()
        sync.tick()
        first = time.perf_counter() - began
        imported = sum(store.commitments_by_device().values())
        assert imported == machines * count, (imported, sync.problem, sync.status())
        held = max(work.held) if work.held else 0.0
        idle = []
        for _ in range(200 if mode == "full" else 20):
            began = time.perf_counter()
            sync.tick()
            idle.append(time.perf_counter() - began)
    finally:
        store.close()
    median = statistics.median(idle) * 1000
    s1 = {
        "name": f"a look at the folder with nothing new ({machines} other machines)",
        "unit": "ms",
        "median": round(median, 3),
        "p95": round(sorted(idle)[int(0.95 * len(idle))] * 1000, 3),
        "met": median <= 2,
    }
    s2 = {
        "name": f"the first import of {machines} machines × {count:,} commitments",
        "unit": "s",
        "value": round(first, 2),
        "commitments": imported,
        "met": first <= 3,
    }
    s3 = {
        "name": "the longest change (write lock held) while importing",
        "unit": "ms",
        "value": round(held * 1000, 1),
        "changes": len(work.held),
        "met": held * 1000 <= 50,
    }
    return s1, s2, s3
