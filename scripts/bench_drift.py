"""D1, the drift guard's cost (issue 13): judge calls for an hour of window switches, and the
time from a switch to an off-task window to its nudge on a real server; and (issue 21,
bench_drift_day.py) the calls standing rules save and what title churn buys over a day, and
(issue 32, the full mode) the day with sites and one 20-minute absence, through the session.

Two parts, because an hour cannot be waited for:

* **calls per hour**: the pure drift policy (antidrift/drift/policy.py) driven through a seeded,
  realistic hour of switches (mostly work windows, some distractions, revisits) with a fake
  clock; a call is counted when the policy asks for one, and its verdict returns at once.
* **on a real server**: `antidrift serve` with a fake claude that judges by title (each call
  takes `JUDGE_DELAY` s, like a fast real CLI) and a fake notify-send: every window of a short
  tour is judged once and never again on the second tour, and the switch to an off-task
  window is followed by a notification within grace + one judge call (+ the 1 s tick).

Used by scripts/bench.py (`--only D1`).
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench_drift_day import day_met, simulate_day, simulate_site_day, site_day_met

from antidrift.core.drift_records import Judgement, Verdict
from antidrift.drift.policy import CallBudget, DriftPolicy, DriftSettings
from tests.support.fake_judge import drift_server

GOAL = (
    "≤ 1 call per distinct window, 0 for judged ones; nudge ≤ grace + 1 call (+1 s tick);"
    " a day: 0 calls for windows a rule decides, the cap holds, churn never late;"
    " the day with sites and 20 min away: 0 nudges and calls while away, calls with sites"
    " ≤ without, no false alarm with sites"
)
GRACE = 2.0  # seconds, on the real server
JUDGE_DELAY = 1.0  # seconds each fake judge call takes
# The quick mode (the test suite runs it) proves the same counts with a shorter grace and a
# faster judge: its latency is sanity, not the goal.
QUICK_GRACE, QUICK_JUDGE_DELAY = 0.5, 0.25
TOUR = [
    ("code", "report.md — Visual Studio Code"),
    ("firefox", "pandas.DataFrame.pivot — pandas documentation"),
    ("kitty", "pytest -q — ~/report"),
    ("slack", "#finance — Slack"),
]
OFF_TASK = ("firefox", "Cat compilation — YouTube")

# An hour's windows: (app, title, on task, weight). Work dominates; distractions recur.
HOUR_WINDOWS = [
    ("code", "report.md — Visual Studio Code", True, 30),
    ("code", "charts.py — Visual Studio Code", True, 12),
    ("kitty", "python charts.py — ~/report", True, 10),
    ("firefox", "pandas.DataFrame.pivot — pandas documentation", True, 8),
    ("firefox", "Matplotlib tutorial — YouTube", True, 4),
    ("firefox", "Q3 figures — Google Sheets", True, 8),
    ("slack", "#finance — Slack", True, 6),
    ("thunderbird", "Inbox — Thunderbird", True, 4),
    ("firefox", "Home / X", False, 5),
    ("firefox", "Cat compilation — YouTube", False, 3),
    ("firefox", "Hacker News", False, 4),
    ("slack", "#random — Slack", False, 3),
    ("signal", "(excluded)", False, 3),
]


def _hour(seed: int = 13) -> list[tuple[str, str, float]]:
    """Switches over one hour: (app, title, seconds of focus), dwell 5 s to 10 min."""
    rng = random.Random(seed)
    weights = [w[3] for w in HOUR_WINDOWS]
    switches, elapsed, last = [], 0.0, None
    while elapsed < 3600:
        window = rng.choices(HOUR_WINDOWS, weights)[0]
        if window is last:
            continue
        dwell = min(600.0, max(5.0, rng.expovariate(1 / 75)))
        switches.append((window[0], window[1], dwell))
        elapsed, last = elapsed + dwell, window
    return switches


def simulate_hour(settings: DriftSettings) -> dict[str, object]:
    """Judge calls, nudges and repeat calls for the seeded hour, by the pure policy."""
    verdicts = {(a, t): on for a, t, on, _ in HOUR_WINDOWS}
    now = datetime(2026, 3, 2, 9, tzinfo=UTC)
    policy = DriftPolicy(settings, CallBudget(settings.max_calls))
    calls, nudges, repeats, judged = 0, 0, 0, set()

    def apply(effects) -> None:
        nonlocal calls, nudges, repeats
        while effects.judge is not None:
            call = effects.judge
            key = (call.window.app, call.window.title)
            calls += 1
            repeats += key in judged
            judged.add(key)
            said = Verdict.ON_TASK if verdicts[key] else Verdict.OFF_TASK
            effects_next = policy.settle(call.ticket, Judgement(said, ""), None, now)
            nudges += effects.nudge is not None
            effects = effects_next
        nudges += effects.nudge is not None

    switches = _hour()
    for app, title, dwell in switches:
        apply(policy.observe(app, title, now))
        end = now + timedelta(seconds=dwell)
        while now < end:  # the sampler's 5 s and the ticker's second, coarsened to 5 s
            now = min(end, now + timedelta(seconds=5))
            apply(policy.observe(app, title, now))
    distinct = len({(a, t) for a, t, _ in switches})
    return {
        "switches": len(switches),
        "distinct_windows": distinct,
        "calls": calls,
        "repeat_calls": repeats,
        "nudges": nudges,
    }


def _wait(predicate, timeout: float = 30.0) -> float:
    t0 = time.monotonic()
    while not predicate():
        if time.monotonic() - t0 > timeout:
            raise RuntimeError("the drift bench waited in vain")
        time.sleep(0.01)
    return time.monotonic() - t0


def on_server(
    root: Path, grace: float = GRACE, judge_delay: float = JUDGE_DELAY
) -> dict[str, object]:
    """One tour judged once, a second tour not at all, and the nudge's latency."""
    server, judge, notifier = drift_server(root / "drift", ANTIDRIFT_DRIFT_GRACE=f"{grace:g}")
    judge.configure(off=("youtube",), delay=judge_delay)
    with server:
        server.post("/planning")
        server.post(
            "/commitment",
            {
                "next_action": "Draft the summary",
                "success_condition": "In the doc",
                "timebox_minutes": 30,
            },
        )
        first = []
        for app, title in TOUR:
            before = len(judge.judge_prompts())  # before the post: a fast call is counted
            server.post("/evidence/window", {"app": app, "title": title})
            _wait(lambda: server.get("/state")["drift"]["status"] == "on_task")
            first.append(len(judge.judge_prompts()) - before)
        calls_before = len(judge.judge_prompts())
        for app, title in TOUR:
            server.post("/evidence/window", {"app": app, "title": title})
            time.sleep(0.05)
        time.sleep(0.5)
        second = len(judge.judge_prompts()) - calls_before
        switched = time.monotonic()
        server.post("/evidence/window", {"app": OFF_TASK[0], "title": OFF_TASK[1]})
        _wait(lambda: notifier.calls())
        latency = time.monotonic() - switched
        server.post("/finish")
    return {
        "tour_calls": first,
        "second_tour_calls": second,
        "nudge_latency_s": round(latency, 2),
        "grace_s": grace,
        "judge_call_s": judge_delay,
    }


def bench_d1(root: Path, quick: bool = False) -> dict[str, object]:
    """The D1 figure: calls for an hour, repeats, and the nudge's latency."""
    hour = simulate_hour(DriftSettings())
    day = simulate_day()
    # The site day (issue 32) in the full mode only: its quick mode is a test of its own
    # (tests/bench/test_bench_quick_drift_sites.py runs `bench_drift_day.py --quick`).
    sites = None if quick else simulate_site_day(root / "sites-day")
    server = on_server(root, QUICK_GRACE, QUICK_JUDGE_DELAY) if quick else on_server(root)
    latency_goal = server["grace_s"] + server["judge_call_s"] + 1.0
    met = (
        hour["calls"] <= hour["distinct_windows"]
        and hour["repeat_calls"] == 0
        and all(c <= 1 for c in server["tour_calls"])
        and server["second_tour_calls"] == 0
        and server["nudge_latency_s"] <= latency_goal
        and day_met(day)
        and (sites is None or site_day_met(sites))
    )
    return {
        "name": "drift guard: judge calls per hour, nudge latency",
        "unit": "calls/h",
        "value": hour["calls"],
        "hour": hour,
        "day": day,
        "sites_day": sites,
        "server": server,
        "met": met,
        "goal": GOAL,
    }
