"""The benchmark's drift, history, backup, calendar and sync figures (D1, R1–R3, B1–B2, E1–E2,
S1–S6) in
quick mode, one run of the script per group.

Sanity only, never the goals (see test_bench_quick_server.py)."""

from __future__ import annotations

from tests.support.bench import BACKUP, CALENDAR, DRIFT, REFLECTION, SYNC, quick


def test_quick_bench_reports_the_drift_figure(tmp_path):
    _, f = quick(tmp_path, *DRIFT)
    assert set(f) == set(DRIFT)
    # D1: the drift guard's judge calls are counted, never more than one per window.
    hour, server = f["D1"]["hour"], f["D1"]["server"]
    assert 0 < hour["calls"] <= hour["distinct_windows"] < hour["switches"]
    assert hour["repeat_calls"] == 0 and server["second_tour_calls"] == 0
    assert server["tour_calls"] == [1, 1, 1, 1]
    assert server["grace_s"] <= server["nudge_latency_s"] < 60
    # D1's day: rules spare calls (none about a window a rule decides), the cap holds.
    runs = f["D1"]["day"]["runs"]
    assert runs["rules_and_churn"]["calls_on_ruled_windows"] == 0
    assert 0 < runs["rules_and_churn"]["calls"] < runs["no_rules"]["calls"]
    assert all(0 < r["busiest_hour_calls"] <= r["max_calls"] for r in runs.values())


def test_quick_bench_reports_the_history_figures(tmp_path):
    _, f = quick(tmp_path, *REFLECTION)
    assert set(f) == set(REFLECTION)
    # R1-R3: reflection at scale answered, in a time a working server could take.
    for key in ("R1", "R2", "R3"):
        assert 0 < f[key]["median"] < 30_000, key
    assert f["R2"]["bytes"] > f["R2"]["commitments"] * 100  # every entry is in the CSV
    assert f["R2"]["commitments"] == 2_000  # quick: a fifth of the full run's
    assert set(f["R3"]["cases"]) == {"91", "3091"}


def test_quick_bench_reports_the_backup_figures(tmp_path):
    _, f = quick(tmp_path, *BACKUP)
    assert set(f) == set(BACKUP)
    # B1-B2: a backup of the (quick: a tenth of the) big history was made and timed, and the
    # pages answered while the server made its own.
    assert 0 < f["B1"]["median"] < 600 and f["B1"]["database_mib"] > 1
    for case in f["B2"]["cases"].values():
        assert 0 < case["after_ms"] < 30_000


def test_quick_bench_reports_the_calendar_figure(tmp_path):
    _, f = quick(tmp_path, *CALENDAR)
    assert set(f) == set(CALENDAR)
    # E1: a refresh of the 5,000-event file was timed, and it found the window's events.
    assert 0 < f["E1"]["median"] < 30_000 and f["E1"]["events_counted"] > 10
    # E2: the 45,000-event file, read whole (under the 5 MiB a read takes) in its child.
    assert 0 < f["E2"]["median"] < 30_000 and f["E2"]["events_counted"] > 10


def test_quick_bench_reports_the_sync_figures(tmp_path):
    _, f = quick(tmp_path, *SYNC)
    assert set(f) == set(SYNC)
    # S2: every commitment the other machines wrote was imported, in several changes (S3).
    assert f["S2"]["commitments"] > 0 and 0 < f["S2"]["value"] < 60
    assert f["S3"]["changes"] > 1 and 0 < f["S3"]["value"] < 10_000
    assert 0 < f["S1"]["median"] < 1000
    # S4: the landing was imported by the running thread, within a few of its (quick) polls.
    assert f["S4"]["n"] == 1 and 0 < f["S4"]["median"] < 4 * f["S4"]["poll_s"] + 5
    # S5: a folder of a few segments (compacted), of a plausible size per 1,000.
    assert 2 <= f["S5"]["files"] <= 30 and 10 < f["S5"]["value"] < 100_000
    # S6: the idle thread looked a few times, and its CPU time was read.
    assert f["S6"]["looks"] >= 1 and 0 < f["S6"]["cpu_ms"] < 2_000
