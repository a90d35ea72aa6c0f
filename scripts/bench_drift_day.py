"""D1, the calls standing rules save and what title churn buys, over a seeded working day.

The pure drift policy (antidrift/drift/policy.py) with a fake clock, through eight one-hour
commitments back to back (the verdict cache is per commitment; rules and the hourly call cap
are not). The windows are what a day brings: an editor and a terminal whose titles change
with the file and the command, documentation pages, chat about the work and not, a video
site that retitles itself for every video (autoplay), a news site read article by article,
a game launcher. Focus is sampled every 5 s, the ticker runs every second, and each judge
call answers the window's true verdict after `JUDGE_SECONDS`.

Runs of the same day: the 0.4 policy as it is, without the user's standing rules, without
title churn (a bench-only subclass in which nothing speaks for an app's other titles: a new
title waits for its own verdict, as in 0.3), and without either; then, with no rules, a
cap of TIGHT_CAP calls an hour that binds, with and without churn. Each counts judge calls
(those about a window a rule decides, and the most in any hour), nudges, nudges for a
window that was on task (false alarms), and how long after it was due (the grace, or the
cooldown after the last nudge) each nudge came.

Used by bench_drift.py (scripts/bench.py `--only D1`).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from antidrift.drift.policy import CallBudget, DriftPolicy, DriftSettings, Effects, JudgeCall
from antidrift.drift.verdicts import Judgement, Rule, Verdict, matching_rule

JUDGE_SECONDS = 3  # a local model's or a fast CLI's answer
TIGHT_CAP = 12  # judge calls an hour in the second pair of runs: a cap that binds
COMMITMENTS = 8  # one hour each
SAMPLE_EVERY = 5  # seconds between focus samples (the sampler)
START = datetime(2026, 3, 2, 9, tzinfo=UTC)

# The rules a user would have set by the second day: the editor and the terminal are always on
# task (from the banner), the game launcher is never, nor is the video site in the browser.
RULES = (
    Rule(1, "code", "", Verdict.ON_TASK),
    Rule(2, "kitty", "", Verdict.ON_TASK),
    Rule(3, "steam", "", Verdict.OFF_TASK),
    Rule(4, "firefox", "YouTube", Verdict.OFF_TASK),
)

FILES = ["report.md", "charts.py", "figures.py", "README.md", "test_charts.py", "data.csv"]
COMMANDS = ["pytest -q", "git status", "python charts.py", "git diff", "less data.csv", "vim"]
DOCS = [f"{p} — pandas documentation" for p in ("DataFrame.pivot", "merge", "groupby", "melt")]
DOCS += [f"{p} — Matplotlib documentation" for p in ("pyplot.bar", "Axes.legend", "subplots")]
DOCS += ["Q3 figures — Google Sheets", "How to pivot a table in pandas - Stack Overflow"]
VIDEOS = [f"{n} - YouTube" for n in (
    "Cat compilation 2026", "Top 10 goals of the season", "Lo-fi beats to study to",
    "The history of the bicycle", "Speedrun world record", "Cooking pasta like a pro",
    "Why cities look the same", "Retro console teardown", "Live: space launch",
)]  # fmt: skip
ARTICLES = [f"{t} | Hacker News" for t in (
    "Show HN: a tiny database", "The joy of plain text", "A new CPU bug", "Ask HN: burnout",
    "Rust in the kernel", "How we scaled Postgres", "Why I left big tech",
)]  # fmt: skip


@dataclass(frozen=True)
class Spell:
    """Focus on one app for a while; its title may change along the way (`titles`, each
    shown for the seconds given)."""

    app: str
    titles: tuple[tuple[str, float], ...]
    on_task: bool


def _spell(rng: random.Random) -> Spell:
    kind = rng.choices(
        ["code", "kitty", "docs", "finance", "random", "video", "news", "steam"],
        [34, 16, 14, 7, 4, 9, 8, 2],
    )[0]
    dwell = min(900.0, max(10.0, rng.expovariate(1 / 120)))
    if kind == "code":
        return Spell("code", ((f"{rng.choice(FILES)} — Visual Studio Code", dwell),), True)
    if kind == "kitty":
        return Spell("kitty", ((f"{rng.choice(COMMANDS)} — ~/report", dwell),), True)
    if kind == "docs":
        return Spell("firefox", ((f"{rng.choice(DOCS)} — Mozilla Firefox", dwell),), True)
    if kind == "finance":
        return Spell("slack", (("#finance — Slack", dwell),), True)
    if kind == "random":
        return Spell("slack", (("#random — Slack", dwell),), False)
    if kind == "steam":
        return Spell("steam", (("Steam — Store", dwell),), False)
    # The video site retitles for each video (autoplay); the news site for each article.
    pool, each = (VIDEOS, (60, 240)) if kind == "video" else (ARTICLES, (20, 90))
    titles, left = [], max(dwell, 90.0)
    while left > 0:
        shown = min(left, rng.uniform(*each))
        titles.append((f"{rng.choice(pool)} — Mozilla Firefox", shown))
        left -= shown
    return Spell("firefox", tuple(titles), False)


def working_day(seed: int = 21) -> list[list[Spell]]:
    """Eight hours of spells, one list per one-hour commitment; no app twice in a row."""
    rng = random.Random(seed)
    day = []
    for _ in range(COMMITMENTS):
        hour, elapsed, last = [], 0.0, None
        while elapsed < 3600:
            spell = _spell(rng)
            if last is not None and (spell.app, spell.titles[0][0]) == last:
                continue
            hour.append(spell)
            elapsed += sum(seconds for _, seconds in spell.titles)
            last = (spell.app, spell.titles[-1][0])
        day.append(hour)
    return day


class WithoutChurn(DriftPolicy):
    """The policy with title churn taken out (the bench's baseline, as 0.3 behaved): nothing
    the judge said of one title speaks for the app's other titles."""

    def _learn(self, window, judgement) -> None:
        pass


class _Day:
    """One run's state: the clock, the policy of the commitment under way, what it counted."""

    def __init__(self, settings: DriftSettings, rules: bool, churn: bool) -> None:
        self.settings, self.rules = settings, RULES if rules else ()
        self.kind = DriftPolicy if churn else WithoutChurn
        self.budget = CallBudget(settings.max_calls)  # it outlives commitments
        self.now = START
        self.truth: dict[tuple[str, str], bool] = {}
        self.calls: list[datetime] = []
        self.ruled = 0  # calls about a window a standing rule decides
        self.nudges: list[tuple[float, bool]] = []  # (seconds late, the window was on task)
        self.policy = self.kind(settings, self.budget, rules=self.rules)
        self.pending: list[tuple[datetime, JudgeCall]] = []  # (its answer due, the call)

    def commitment(self, hour: list[Spell]) -> None:
        self.policy = self.kind(self.settings, self.budget, rules=self.rules)
        self.pending = []
        for spell in hour:
            for title, seconds in spell.titles:
                self.truth[(spell.app, title)] = spell.on_task
                self.apply(self.policy.observe(spell.app, title, self.now))
                end, step = self.now + timedelta(seconds=seconds), 0
                while self.now < end:
                    self.now += timedelta(seconds=1)
                    step += 1
                    self.answer_due()
                    if step % SAMPLE_EVERY == 0:
                        self.apply(self.policy.observe(spell.app, title, self.now))
                    else:
                        self.apply(self.policy.tick(self.now))
        self.policy.stop(self.now)

    def apply(self, effects: Effects) -> None:
        if effects.nudge is not None:
            # Due at the end of the grace, or of the cooldown after the last nudge.
            episode, before = effects.nudge, self.policy.episodes[:-1]
            due = episode.started_at + self.settings.grace
            if before:
                due = max(due, before[-1].nudged_at + self.settings.cooldown)
            late = (episode.nudged_at - due).total_seconds()
            self.nudges.append((late, self.truth[(episode.app, episode.title)]))
        if effects.judge is not None:
            call = effects.judge
            self.calls.append(self.now)
            self.ruled += matching_rule(RULES, call.window.app, call.window.title) is not None
            self.pending.append((self.now + timedelta(seconds=JUDGE_SECONDS), call))

    def answer_due(self) -> None:
        while self.pending and self.pending[0][0] <= self.now:
            _, call = self.pending.pop(0)
            on = self.truth[(call.window.app, call.window.title)]
            said = Judgement(Verdict.ON_TASK if on else Verdict.OFF_TASK, "scripted")
            self.apply(self.policy.settle(call.ticket, said, None, self.now))


def run_day(
    day: list[list[Spell]], *, rules: bool, churn: bool, max_calls: int = 30
) -> dict[str, object]:
    """One run of the day through the policy; the figures."""
    run = _Day(DriftSettings(max_calls=max_calls), rules, churn)
    for hour in day:
        run.commitment(hour)
    calls = run.calls
    busiest = max(sum(1 for c in calls if t <= c < t + timedelta(hours=1)) for t in calls)
    late = [seconds for seconds, _ in run.nudges]
    return {
        "calls": len(calls),
        "calls_on_ruled_windows": run.ruled,
        "busiest_hour_calls": busiest,
        "max_calls": max_calls,
        "nudges": len(run.nudges),
        "false_alarms": sum(1 for _, on_task in run.nudges if on_task),
        "nudge_after_due_s": {
            "median": statistics.median(late) if late else None,
            "max": max(late) if late else None,
        },
    }


def simulate_day(seed: int = 21) -> dict[str, object]:
    """The four runs and what rules and churn change."""
    day = working_day(seed)
    spells = [spell for hour in day for spell in hour]
    windows = {(s.app, t) for s in spells for t, _ in s.titles}
    runs = {
        "rules_and_churn": run_day(day, rules=True, churn=True),
        "no_rules": run_day(day, rules=False, churn=True),
        "no_churn": run_day(day, rules=True, churn=False),
        "neither": run_day(day, rules=False, churn=False),
        # A cap that binds (no rules to spare calls): where churn has work to do.
        "tight_cap": run_day(day, rules=False, churn=True, max_calls=TIGHT_CAP),
        "tight_cap_no_churn": run_day(day, rules=False, churn=False, max_calls=TIGHT_CAP),
    }
    return {
        "commitments": COMMITMENTS,
        "switches": sum(len(s.titles) for s in spells),
        "distinct_windows": len(windows),
        "judge_call_s": JUDGE_SECONDS,
        "runs": runs,
        "calls_saved_by_rules": runs["no_rules"]["calls"] - runs["rules_and_churn"]["calls"],
        "calls_saved_by_churn": runs["no_churn"]["calls"] - runs["rules_and_churn"]["calls"],
    }


def day_met(day: dict[str, object]) -> bool:
    """The issue's promises, on this day: a rule decides with no judge call; the hourly cap
    holds; churn never delays a nudge past its grace (and a judge call) and costs no nudge."""
    runs = day["runs"]
    best, without = runs["rules_and_churn"], runs["no_churn"]
    return (
        best["calls_on_ruled_windows"] == 0
        and without["calls_on_ruled_windows"] == 0
        and all(r["busiest_hour_calls"] <= r["max_calls"] for r in runs.values())
        and best["calls"] < runs["no_rules"]["calls"]
        and (best["nudge_after_due_s"]["max"] or 0) <= JUDGE_SECONDS + SAMPLE_EVERY
        and best["nudges"] >= without["nudges"]
        and runs["tight_cap"]["nudges"] >= runs["tight_cap_no_churn"]["nudges"]
        and best["false_alarms"] == 0
    )
