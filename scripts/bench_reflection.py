"""R1–R3, reflection at scale (issue 15): the insights page and /history.csv over 10,000
ended commitments, and the review view of one commitment with 20,000 window samples.

Each figure seeds a database (tests/support/history.py), starts a real `antidrift serve` on
it, and times whole GET requests on one keep-alive connection (first byte to last byte, as a
browser waits for them). The review is measured twice: 91 distinct windows (a usual day) and
18,091 (every sample a new title, the heaviest case).

Used by scripts/bench.py (`--only R1,R2,R3`).
"""

from __future__ import annotations

import http.client
import statistics
import time
from pathlib import Path

from tests.support.history import seed_history, seed_review
from tests.support.server import RunningServer

GOALS = {
    "R1": "median ≤ 150 ms",
    "R2": "median ≤ 300 ms",
    "R3": "median ≤ 100 ms (both cases)",
}
ENDED = 10_000
SAMPLES = 20_000
DISTINCT = (91, 18_091)
# The suite's quick run: a fifth of each (its test checks the figures are made, not the goal).
QUICK = {"ended": 2_000, "samples": 4_000, "distinct": (91, 3_091)}


def _timed_gets(server: RunningServer, path: str, trials: int, warmup: int = 2) -> list[float]:
    """Milliseconds per GET of path (whole body read), after a warm-up."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    times = []
    try:
        for n in range(warmup + trials):
            start = time.perf_counter()
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            elapsed = (time.perf_counter() - start) * 1000
            if resp.status != 200 or not body:
                raise RuntimeError(f"GET {path}: {resp.status}")
            if n >= warmup:
                times.append(elapsed)
    finally:
        conn.close()
    return times


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = statistics.quantiles(ordered, n=100, method="inclusive")[94] if len(ordered) > 1 else 0
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 1),
        "p95": round(p95 or ordered[0], 1),
        "min": round(ordered[0], 1),
        "max": round(ordered[-1], 1),
    }


def bench_history(root: Path, trials: int, quick: bool = False) -> tuple[dict, dict]:
    """R1 (/insights) and R2 (/history.csv) over ENDED ended commitments."""
    ended = QUICK["ended"] if quick else ENDED
    data = root / "reflection-history"
    seed_history(data / "antidrift.sqlite3", ended)
    server = RunningServer(data).start()
    try:
        insights = _summary(_timed_gets(server, "/insights", trials))
        csv = _summary(_timed_gets(server, "/history.csv", trials))
        csv_bytes = len(_body(server, "/history.csv"))
    finally:
        server.stop()
    r1 = {
        "name": f"GET /insights, {ended:,} ended commitments",
        "unit": "ms",
        **insights,
        "met": insights["median"] <= 150,
    }
    r2 = {
        "name": f"GET /history.csv, {ended:,} ended commitments",
        "commitments": ended,
        "unit": "ms",
        **csv,
        "bytes": csv_bytes,
        "met": csv["median"] <= 300,
    }
    return r1, r2


def bench_review(root: Path, trials: int, quick: bool = False) -> dict:
    """R3: GET / in review of one commitment with SAMPLES samples, for each DISTINCT."""
    samples = QUICK["samples"] if quick else SAMPLES
    distincts = QUICK["distinct"] if quick else DISTINCT
    cases = {}
    for distinct in distincts:
        data = root / f"reflection-review-{distinct}"
        seed_review(data / "antidrift.sqlite3", samples, distinct=distinct)
        server = RunningServer(data).start()
        try:
            if server.get("/state")["runtime_state"] != "review":
                raise RuntimeError("the seeded commitment is not in review")
            cases[str(distinct)] = _summary(_timed_gets(server, "/", trials))
        finally:
            server.stop()
    worst = max(cases.values(), key=lambda c: c["median"])
    return {
        "name": f"review view, {samples:,} samples ({' / '.join(map(str, distincts))} windows)",
        "unit": "ms",
        "median": worst["median"],
        "p95": worst["p95"],
        "cases": cases,
        "met": all(c["median"] <= 100 for c in cases.values()),
    }


def _body(server: RunningServer, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", path)
        return conn.getresponse().read()
    finally:
        conn.close()
