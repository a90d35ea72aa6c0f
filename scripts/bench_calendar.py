"""E1, the calendar at scale (issue 34): how long one refresh of a calendar of 5,000 events
takes (a file of years: one-off events over about four years, every 50th a daily series).

One refresh is what the refresher thread does when the file's mtime changed: read the file,
drop the one-off events that cannot reach the window, parse the rest with icalendar, expand
the series with recurring-ical-events over the window, keep what counts. It runs off the
request path (the pages read the kept events), so the figure is the thread's cost, not a
page's wait. Used by scripts/bench.py (`--only E1`).
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
EVENTS = 5_000
TRIALS = {"full": 30, "quick": 3}


class _Clock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


def bench_e1(root: Path, mode: str) -> dict:
    """E1: one refresh of a 5,000-event calendar file whose mtime changed."""
    path = root / "calendar-bench" / "big.ics"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(many(EVENTS, datetime.now(UTC)), encoding="utf-8", newline="")
    kept = Calendar(root / "calendar-bench" / "cache", _Clock())
    kept.configure(parse(str(path)))
    kept.refresh()  # the first read: imports and zone data warmed
    times, cpu, counted = [], [], 0
    for i in range(TRIALS[mode]):
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
        "name": f"one refresh of a {EVENTS:,}-event calendar ({path.stat().st_size // 1024} KiB)",
        "unit": "ms",
        "median": round(median, 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1),
        "cpu_median": round(statistics.median(cpu) * 1000, 1),  # a busy machine's wall time
        "events_counted": counted,
        "trials": len(times),
        "met": median <= 200,
    }
