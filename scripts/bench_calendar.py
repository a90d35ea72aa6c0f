"""E1 and E2, the calendar at scale (issues 34, 41): how long one refresh of a calendar of
5,000 (45,000) events takes (a file of years: one-off events every 7 hours, every 50th a
series).

One refresh is what the refresher thread does when the file's mtime changed: read the file,
drop the one-off events that cannot reach the window, parse the rest with icalendar, expand
the series with recurring-ical-events over the window, keep what counts. It runs off the
request path (the pages read the kept events), so the figure is the thread's cost, not a
page's wait; since 0.6 the parsing runs in a child process (calendar/expand.py), its start
included. Used by scripts/bench.py (`--only E1`, `--only E2`).
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from antidrift.calendar import Calendar, parse
from tests.support.ics import many

GOAL = "median ≤ 200 ms"
GOAL_E2 = "median ≤ 2 s"
EVENTS = 5_000
EVENTS_E2 = 45_000  # a real calendar of many years (~4.9 MB: under the 5 MiB a read takes)
TRIALS = {"full": 30, "quick": 3}
TRIALS_E2 = {"full": 5, "quick": 1}


class _Clock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


def bench_e1(root: Path, mode: str) -> dict:
    """E1: one refresh of a 5,000-event calendar file whose mtime changed."""
    return _bench(root, mode, EVENTS, TRIALS, 200)


def bench_e2(root: Path, mode: str) -> dict:
    """E2: the same for a 45,000-event file (as calendar programs write them: no DTSTAMP)."""
    return _bench(root, mode, EVENTS_E2, TRIALS_E2, 2000)


def _bench(root: Path, mode: str, events: int, trials: dict, goal_ms: float) -> dict:
    path = root / "calendar-bench" / f"big-{events}.ics"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = many(events, datetime.now(UTC)).replace("DTSTAMP:20260101T000000Z\r\n", "")
    path.write_text(text, encoding="utf-8", newline="")
    kept = Calendar(root / "calendar-bench" / "cache", _Clock())
    kept.configure(parse(str(path)))
    kept.refresh()  # the first read: imports and zone data warmed
    times, cpu, counted = [], [], 0
    for i in range(trials[mode]):
        stamp = path.stat().st_mtime_ns + (i + 1) * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))  # a sync rewrote it
        began, used = time.perf_counter(), time.process_time()
        kept.refresh()
        times.append(time.perf_counter() - began)
        cpu.append(time.process_time() - used)
        counted = len(kept._events)
    assert kept.agenda(datetime.now(UTC)).problem is None, kept.agenda(datetime.now(UTC)).problem
    ordered = sorted(times)
    median = statistics.median(times) * 1000
    return {
        "name": f"one refresh of a {events:,}-event calendar ({path.stat().st_size // 1024} KiB)",
        "unit": "ms",
        "median": round(median, 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1),
        "cpu_median": round(statistics.median(cpu) * 1000, 1),  # a busy machine's wall time
        "events_counted": counted,
        "trials": len(times),
        "met": median <= goal_ms,
    }
