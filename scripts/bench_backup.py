"""B1–B2, backups at scale (issue 24): how long a backup of a big history takes, and whether
the pages wait for the server's own backup.

B1 seeds a database of 10,000 ended commitments and 1,000,000 window samples (plus one
commitment in review with 20,000), and times `backup.back_up` on it, as `antidrift backup`
runs it: SQLite's online backup, the copy's quick_check, its fsync. B2 starts a real
`antidrift serve` on that database with no backup yet, so the server backs up at once on its
own thread, and times GET /insights and the review view (GET /) while that backup runs and
then after it, on one keep-alive connection each (each path's first GET, the server's
warm-up, is left out).

The quick mode (the test suite runs it) uses a tenth of the history. Used by
scripts/bench.py (`--only B1,B2`).
"""

from __future__ import annotations

import http.client
import re
import shutil
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from antidrift.store import backup
from tests.support.history import seed_history, seed_review
from tests.support.server import RunningServer

GOALS = {
    "B1": "median ≤ 5 s",
    "B2": "median during ≤ 1.5 × after",
}
SCALE = {"full": (10_000, 100), "quick": (1_000, 100)}  # ended commitments, samples each
REVIEW_SAMPLES = 20_000
TRIALS = {"full": 3, "quick": 1}
WRITTEN = "backup written"


def _seed(root: Path, mode: str) -> tuple[Path, int, int]:
    ended, each = SCALE[mode]
    db = root / "backup-bench" / "antidrift.sqlite3"
    seed_history(db, ended, samples_each=each)
    seed_review(db, REVIEW_SAMPLES, distinct=91)  # the server opens in review
    return db, ended, ended * each


def bench_backup(root: Path, mode: str) -> tuple[dict, dict]:
    """B1 (a backup's time) and B2 (pages during the server's own backup)."""
    db, ended, samples = _seed(root, mode)
    times = []
    for _ in range(TRIALS[mode]):
        began = time.perf_counter()
        made = backup.back_up(db, backup.folder(db.parent), datetime.now(UTC))
        times.append(time.perf_counter() - began)
        made.unlink()
    b1 = {
        "name": f"backup, {ended:,} commitments and {samples:,} window samples",
        "unit": "s",
        "median": round(statistics.median(times), 2),
        "p95": round(max(times), 2),
        "database_mib": round(db.stat().st_size / 2**20, 1),
        "met": statistics.median(times) <= 5,
    }
    shutil.rmtree(backup.folder(db.parent), ignore_errors=True)
    return b1, _pages_during_backup(db, ended, samples)


def _pages_during_backup(db: Path, ended: int, samples: int) -> dict:
    server = RunningServer(db.parent).start()  # no backup yet: it starts one on its thread
    try:
        during = {"/insights": [], "/": []}
        conns = {path: http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
                 for path in during}  # fmt: skip
        try:
            while WRITTEN not in server.log():
                for path, conn in conns.items():
                    during[path].append(_get(conn, path))
            # Each path's first GET warms the server up (templates, caches): not a backup's cost.
            during = {path: times[1:] for path, times in during.items()}
            after = {path: [_get(conn, path) for _ in range(max(len(during[path]), 5))]
                     for path, conn in conns.items()}  # fmt: skip
        finally:
            for conn in conns.values():
                conn.close()
        took = re.search(r"backup written: .* in ([0-9.]+) s", server.log())
    finally:
        server.stop()
    cases = {
        path: {
            "during_ms": round(statistics.median(during[path]), 1) if during[path] else None,
            "after_ms": round(statistics.median(after[path]), 1),
            "gets_during": len(during[path]),
        }
        for path in during
    }
    ratios = [c["during_ms"] / c["after_ms"] for c in cases.values() if c["during_ms"] is not None]
    ratio = round(max(ratios), 2) if ratios else None
    return {
        "name": "GET /insights and review while the server backs up",
        "unit": "ratio",
        "value": ratio if ratio is not None else 0.0,
        "cases": cases,
        "history": f"{ended:,} commitments, {samples:,} samples",
        "server_backup_s": float(took[1]) if took else None,  # at a lower CPU priority
        # A backup too quick for any GET to overlap it slowed nothing down.
        "met": ratio is None or ratio <= 1.5,
    }


def _get(conn: http.client.HTTPConnection, path: str) -> float:
    """Milliseconds for one whole GET."""
    began = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200 or not body:
        raise RuntimeError(f"GET {path}: {response.status}")
    return (time.perf_counter() - began) * 1000
