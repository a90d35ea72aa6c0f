"""Q1, the day at scale (issue 43): GET /day and GET /day.json with 200 items and a
5,000-event calendar, on a real `antidrift serve`.

"200 items" two ways, since the queue holds at most 50 (POST /day/items refuses the 51st):

* **allowed**, the most the contract lets /day read: 200 items in the day's table, 50 of them
  queued (the cap; 10 carried from yesterday, a third without minutes) and 150 started over
  the last five days (30 today), each with its commitment, met or missed (the day's end
  counts them), beside a history of ENDED other commitments; the calendar is E1's file,
  5,000 events over about four years (`tests/support/ics.py` `many`), of which the keeper
  holds today's and tomorrow's.
* **listed**, the bound: 200 items queued, written straight into the store past the cap, so
  the page lists four times what it can hold; the calendar holds 5,000 events all within
  today and tomorrow (one every 35 s, each 30 min: overlapping), the most a request could
  be handed, where the E1 file hands it a few dozen.

Each calendar is an .ics file read through the calendar setting (ANTIDRIFT_CALENDAR), as a
user's is; `day_ends` is 23:59 so the free minutes are counted over the rest of the day
whenever the bench runs. Whole GETs on one keep-alive connection, 3 warm-ups, then the
trials, /day and /day.json in turn. Used by scripts/bench.py (`--only Q1`).
"""

from __future__ import annotations

import http.client
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench_reflection import _summary

from antidrift.core.day import DayItem
from antidrift.core.domain import Commitment, Outcome, RuntimeState
from tests.support import ics
from tests.support.history import seed_history
from tests.support.server import RunningServer
from tests.support.store import change, committing

GOAL = "median ≤ 50 ms (/day and /day.json, both cases)"
GOAL_MS = 50
ITEMS = 200
QUEUED = 50  # the queue's cap (core/day.MAX_ITEMS)
EVENTS = 5_000
ENDED = {"full": 10_000, "quick": 1_000}  # the history beside the started items
TRIALS = {"full": 30, "quick": 3}
WARMUP = 3
ROUTES = ("/day", "/day.json")


def bench_q1(root: Path, mode: str) -> dict:
    now = datetime.now(UTC)
    cases = {
        "allowed": _case(root / "day-allowed", mode, now, queued=QUEUED, dense=False),
        "listed": _case(root / "day-listed", mode, now, queued=ITEMS, dense=True),
    }
    worst = max(
        (route for case in cases.values() for route in case["routes"].values()),
        key=lambda r: r["median"],
    )
    return {
        "name": f"GET /day and /day.json, {ITEMS} items, a {EVENTS:,}-event calendar",
        "unit": "ms",
        "median": worst["median"],
        "p95": worst["p95"],
        "cases": cases,
        "met": all(
            route["median"] <= GOAL_MS
            for case in cases.values()
            for route in case["routes"].values()
        ),
    }


def _case(data: Path, mode: str, now: datetime, *, queued: int, dense: bool) -> dict:
    database = data / "antidrift.sqlite3"
    data.mkdir(parents=True, exist_ok=True)
    if not dense:
        seed_history(database, ENDED[mode])
    _seed_items(database, now, queued)
    calendar = data.parent / f"{data.name}.ics"
    text = _dense(now) if dense else ics.many(EVENTS, now)
    calendar.write_text(text, encoding="utf-8", newline="")
    env = {"ANTIDRIFT_CALENDAR": str(calendar), "ANTIDRIFT_DAY_ENDS": "23:59"}
    server = RunningServer(data, env=env).start()
    try:
        _await_calendar(server)
        day = json.loads(_get(http.client.HTTPConnection("127.0.0.1", server.port), "/day.json"))
        if len(day["items"]) != queued:
            raise RuntimeError(f"/day.json lists {len(day['items'])} items, not {queued}")
        times: dict[str, list[float]] = {route: [] for route in ROUTES}
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        try:
            for n in range(WARMUP + TRIALS[mode]):
                for route in ROUTES:
                    began = time.perf_counter()
                    _get(conn, route)
                    if n >= WARMUP:
                        times[route].append((time.perf_counter() - began) * 1000)
        finally:
            conn.close()
    finally:
        server.stop()
    return {
        "queued": len(day["items"]),
        "carried": sum(item["carried"] for item in day["items"]),
        "tally": day.get("tally"),
        "free_minutes": day["free_minutes"],
        "planned_minutes": day["planned_minutes"],
        "calendar_kib": calendar.stat().st_size // 1024,
        "routes": {route: _summary(values) for route, values in times.items()},
    }


def _seed_items(database: Path, now: datetime, queued: int) -> None:
    """`queued` items not started (a fifth from yesterday, a third without minutes) and, up
    to ITEMS, items started over the last five days with their commitments (met, missed)."""
    store = committing(database)
    raw = store.store
    today = now.astimezone().date()
    with change(raw):
        for i in range(queued):
            raw.add_day_item(
                DayItem(
                    id=f"queued-{i:03d}",
                    day=today - timedelta(days=1) if i < queued // 5 else today,
                    next_action=f"Queued thing number {i} to do today",
                    success_condition="" if i % 3 == 0 else f"Thing {i} is done and saved",
                    timebox_minutes=None if i % 3 == 0 else 15 + i % 4 * 15,
                    position=i,
                    created_at=now - timedelta(hours=1),
                )
            )
        for i in range(ITEMS - queued):
            _started(raw, now, i)
    raw.close()


def _started(store, now: datetime, i: int) -> None:
    """One item started (day i % 5 days ago), its commitment ended met or missed."""
    at = now - timedelta(days=i % 5, minutes=30 + i)
    item = DayItem(
        id=f"started-{i:03d}",
        day=at.astimezone().date(),
        next_action=f"Started thing number {i}",
        success_condition=f"Thing {i} is done",
        timebox_minutes=25,
        position=QUEUED + i,
        created_at=at - timedelta(minutes=5),
    )
    store.add_day_item(item)
    store.start_day_item(item.id, at)
    c = Commitment(
        id=f"from-day-{i:03d}",
        next_action=item.next_action,
        success_condition=item.success_condition,
        timebox_secs=25 * 60,
        started_at=at,
        deadline=at + timedelta(minutes=25),
        ended_at=at + timedelta(minutes=20),
        outcome=Outcome.MET if i % 4 else Outcome.MISSED,
        day_item_id=item.id,
    )
    store.save(RuntimeState.LOCKED, c)


def _dense(now: datetime) -> str:
    """EVENTS timed events of 30 min spread evenly over today and tomorrow (local)."""
    midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    step = timedelta(days=2) / EVENTS
    return ics.calendar(
        *(ics.event(f"d{i}@bench", f"Meeting {i}", midnight + step * i) for i in range(EVENTS))
    )


def _await_calendar(server: RunningServer, timeout: float = 30.0) -> None:
    """Until the keeper has read the file (an event is under way or next)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        calendar = server.get("/state")["calendar"]
        if calendar["now"] or calendar["next"]:
            return
        time.sleep(0.05)
    raise RuntimeError(f"the calendar was not read in {timeout:g} s: {server.log()[-2000:]}")


def _get(conn: http.client.HTTPConnection, path: str) -> bytes:
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    if resp.status != 200 or not body:
        raise RuntimeError(f"GET {path}: {resp.status}")
    return body
