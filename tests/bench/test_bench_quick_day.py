"""The benchmark's day figure (Q1: /day and /day.json with 200 items and a 5,000-event
calendar) in quick mode, one run of the script.

Sanity only, never the goal (see test_bench_quick_server.py)."""

from __future__ import annotations

from tests.support.bench import DAY, quick


def test_quick_bench_reports_the_day_figure(tmp_path):
    out, f = quick(tmp_path, *DAY)
    assert set(f) == set(DAY)
    q1 = f["Q1"]
    assert set(q1["cases"]) == {"allowed", "listed"}
    for name, case in q1["cases"].items():
        for route in ("/day", "/day.json"):
            timed = case["routes"][route]
            assert 0 < timed["min"] <= timed["median"] <= timed["max"] < 30_000, (name, route)
    allowed, listed = q1["cases"]["allowed"], q1["cases"]["listed"]
    # The contract's most: the queue at its cap (a fifth carried), the started items counted.
    assert allowed["queued"] == 50 and allowed["carried"] == 10
    assert allowed["tally"]["planned"] > allowed["tally"]["carried"] == 50
    assert allowed["tally"]["met"] > 0 and allowed["tally"]["missed"] > 0
    # The bound: 200 listed, and the dense calendar read (its events fill the day: 0 free).
    assert listed["queued"] == 200 and listed["free_minutes"] == 0
    medians = [r["median"] for c in q1["cases"].values() for r in c["routes"].values()]
    assert q1["median"] == max(medians)
