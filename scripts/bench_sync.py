"""S1–S6, sync at scale (issue 42): a machine joining a folder where five others wrote 10,000
commitments each imports them all (S2) in batches whose change never holds the write lock
long (S3), and from then on a look with nothing new costs almost nothing (S1). With the sync
thread running as the server runs it: a file that lands is imported within a poll (S4), and
the thread idle costs next to no CPU (S6). S5: the folder's size per 1,000 commitments.

The five machines' folders are written by the sync wing as the real ones write them (one
segment each, encrypted); the machine that joins is session/syncing.py over a real SQLite
store and unit of work, its passphrase at hand (`fast` key derivation: the KDF's cost is a
setting's, not sync's). Used by scripts/bench.py (`--only S1,S2,S3`).
"""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid
from pathlib import Path

from antidrift.session import syncing as syncing_module
from antidrift.session.syncing import MAX_SEGMENTS, Syncing
from antidrift.session.unit_of_work import UnitOfWork
from antidrift.store.sqlite import SQLiteStore
from antidrift.sync import DeviceWriter, HybridClock, Keyring, SyncRecord, device_id, unlock
from antidrift.sync.folder import device_dir

GOAL_S1 = "median ≤ 2 ms"
GOAL_S2 = "≤ 3 s"
GOAL_S3 = "≤ 50 ms"
GOAL_S4 = "median ≤ 5 s"
GOAL_S5 = "none (a figure: bytes on disk)"
GOAL_S6 = "≤ 0.1 % of a core"
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


def _writer(folder: Path, data: Path, name: str) -> tuple[DeviceWriter, HybridClock]:
    """A device of the folder: its writer and clock."""
    me = device_id(data)
    keys = Keyring(data)
    unlock(keys, folder, me, PASSPHRASE, fast=True)
    return DeviceWriter(folder, data, me, keys.get(me), name=name), HybridClock(me)


def _write_machine(folder: Path, root: Path, index: int, count: int) -> None:
    writer, clock = _writer(folder, root / f"machine-{index}", f"machine {index}")
    me = writer.device
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


# -- S4–S6: the sync thread as the server runs it ------------------------------------------

LIVE = {"full": {"landings": 5, "idle_s": 60.0}, "quick": {"landings": 1, "idle_s": 1.0}}
QUICK_POLL = 0.5  # quick mode's poll (the suite's sanity run waits no 5 s); full: POLL


def _commitment(me: str, n: int, rng: random.Random) -> dict:
    """An ended commitment as a device sends it, with typical evidence: its time in three
    apps, five windows and their verdicts, a drift episode one time in three, the summary."""
    day = f"2026-11-{1 + n % 28:02d}"
    apps = [["code", 1100.0], ["firefox", 300.0], ["terminal", 100.0]]
    titles = ["report.md - Code", "Quarterly figures - Docs", "pytest", "Inbox", "Chat"]
    windows = [
        [a, t, "", round(rng.uniform(20, 900), 1)]
        for a, t in zip(
            ["code", "firefox", "terminal", "thunderbird", "slack"], titles, strict=True
        )
    ]
    verdicts = [[w[0], w[1], "", "on_task", "fits the next action", "rule"] for w in windows]
    episodes = []
    if n % 3 == 0:
        episodes.append(
            {
                "number": 1,
                "app": "slack",
                "title": "Chat",
                "reason": "a chat app, not the report",
                "started_at": f"{day}T09:10:00+00:00",
                "nudged_at": f"{day}T09:11:00+00:00",
                "ended_at": f"{day}T09:12:30+00:00",
                "answer": "back",
            }
        )
    return {
        "id": str(uuid.uuid4()),
        "next_action": f"Write part {n} of the report",
        "success_condition": "The part is in the draft",
        "timebox_secs": 1500,
        "started_at": f"{day}T09:00:00+00:00",
        "deadline": f"{day}T09:25:00+00:00",
        "ended_at": f"{day}T09:25:00+00:00",
        "outcome": "met" if n % 3 else "missed",
        "note": "" if n % 4 else "Interrupted twice by chat.",
        "extended_secs": 0,
        "actual_secs": 1500,
        "paused_secs": 0,
        "away_secs": 60 if n % 5 == 0 else 0,
        "enforce": "off",
        "device_id": me,
        "device": "laptop",
        "apps": apps,
        "windows": windows,
        "verdicts": verdicts,
        "episodes": episodes,
        "summary": [len(episodes), 0.92, 30.0],
    }


def _folder_bytes(path: Path) -> tuple[int, int]:
    """Bytes on disk (allocated blocks) and files under `path`."""
    size = files = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            size += os.stat(Path(dirpath) / name).st_blocks * 512
            files += 1
    return size, files


def bench_s5(root: Path, mode: str) -> dict:
    """S5: the device folder after 1,000 ended commitments (quick: 100), each written as the
    server writes it — a segment at its end, the older segments compacted past MAX_SEGMENTS."""
    count = 1000 if mode == "full" else 100
    folder = root / "sync-s5" / "Sync"
    folder.mkdir(parents=True, exist_ok=True)
    writer, clock = _writer(folder, root / "sync-s5" / "laptop", "laptop")
    rng = random.Random(5)
    records = 0
    for n in range(count):
        body = _commitment(writer.device, n, rng)
        writer.append(
            [SyncRecord(writer.device, f"commitment:{body['id']}", clock.now(), "commitment", body)]
        )
        records += 1
        if len(writer.segments) > MAX_SEGMENTS:
            writer.compact()
    size, files = _folder_bytes(device_dir(folder, writer.device))
    per_1000 = size * 1000 / count
    return {
        "name": "the folder's size per 1,000 ended commitments (typical evidence)",
        "unit": "KiB",
        "value": round(per_1000 / 1024, 1),
        "commitments": records,
        "files": files,
        "met": True,  # a figure, no goal
    }


def _landing(store, sync: Syncing, writer: DeviceWriter, clock: HybridClock, n: int) -> float:
    """Seconds from a new segment landing (its manifest written) to its commitment imported."""
    before = sum(store.commitments_by_device().values())
    body = _commitment(writer.device, n, random.Random(n))
    record = SyncRecord(writer.device, f"commitment:{body['id']}", clock.now(), "commitment", body)
    writer.append([record])
    landed = time.perf_counter()
    deadline = landed + 4 * syncing_module.POLL + 5
    while sum(store.commitments_by_device().values()) == before:
        if time.perf_counter() > deadline:
            raise AssertionError(f"not imported in time: {sync.problem} {sync.status()}")
        time.sleep(0.005)
    return time.perf_counter() - landed


def _thread_cpu_s(native_id: int) -> float:
    """A thread's CPU time in seconds (Linux: its schedstat, nanoseconds on a CPU)."""
    with open(f"/proc/self/task/{native_id}/schedstat") as stat:
        return int(stat.read().split()[0]) / 1e9


def bench_live(root: Path, mode: str) -> tuple[dict, dict]:
    """S4 and S6: the sync thread started as the server starts it (Syncing.start(), a look
    every POLL seconds; quick mode polls every QUICK_POLL s), one other machine writing."""
    plan = LIVE[mode]
    poll = syncing_module.POLL if mode == "full" else QUICK_POLL
    saved, syncing_module.POLL = syncing_module.POLL, poll
    base = root / "sync-live"
    folder = base / "Sync"
    folder.mkdir(parents=True, exist_ok=True)
    writer, clock = _writer(folder, base / "desk", "desk")
    writer.append(
        [
            SyncRecord(
                writer.device,
                "commitment:first",
                clock.now(),
                "commitment",
                {**_commitment(writer.device, 0, random.Random(0)), "id": "first"},
            )
        ]
    )
    data = base / "laptop"
    store = SQLiteStore(data / "antidrift.sqlite3")
    sync = Syncing(store, UnitOfWork(store), data, folder, "laptop", lambda: PASSPHRASE, fast=True)
    try:
        sync.tick()  # joined: the desk's first segment taken
        assert sum(store.commitments_by_device().values()) == 1, (sync.problem, sync.status())
        sync.start()
        rng = random.Random(4)
        landed = []
        for n in range(plan["landings"]):
            time.sleep(rng.uniform(0, poll))  # a landing at any point of the poll's cycle
            landed.append(_landing(store, sync, writer, clock, n + 1))
        thread = sync._thread
        assert thread is not None and thread.native_id is not None
        time.sleep(poll)  # past the look that took the last landing
        cpu, wall = _thread_cpu_s(thread.native_id), time.perf_counter()
        time.sleep(plan["idle_s"])
        cpu, wall = _thread_cpu_s(thread.native_id) - cpu, time.perf_counter() - wall
    finally:
        sync.stop()
        syncing_module.POLL = saved
        store.close()
    median = statistics.median(landed)
    share = 100 * cpu / wall
    s4 = {
        "name": f"a file landed → imported, the sync thread polling every {poll:g} s",
        "unit": "s",
        "median": round(median, 2),
        "p95": round(max(landed), 2),  # of a few landings: the slowest
        "n": len(landed),
        "poll_s": poll,
        "met": median <= 5,
    }
    s6 = {
        "name": f"the sync thread's CPU with nothing new, over {plan['idle_s']:g} s",
        "unit": "% of a core",
        "value": round(share, 4),
        "cpu_ms": round(cpu * 1000, 2),
        "looks": round(wall / poll),
        "met": share <= 0.1,
    }
    return s4, s6
