"""The week's figures, pure: focused minutes and outcomes per local day, the weekly streak,
the apps that took the time judged off task.

Days are the user's local days; the caller turns each moment into its local date (the read
model does, with the system's time zone), so nothing here knows a clock or a zone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from antidrift.core.domain import Outcome
from antidrift.core.minutes import whole_minutes

DAYS = 7  # the last day is today
TOP_DISTRACTIONS = 5


@dataclass(frozen=True)
class Day:
    """One local day: minutes spent in commitments that ended on it, met and missed; and the
    day's queue: `planned`, the items of that day (started ones included; an item carried
    over counts on the day it was carried to), and `done`, those of them whose commitment
    was met (core/day.Tally)."""

    date: date
    focused_minutes: int = 0
    met: int = 0
    missed: int = 0
    planned: int = 0
    done: int = 0


@dataclass(frozen=True)
class Distraction:
    """An app (or, once samples carry one, a site) and its minutes judged off task."""

    name: str
    minutes: int


@dataclass(frozen=True)
class Week:
    days: tuple[Day, ...]  # oldest first, the last today
    week_streak: int
    top_distractions: tuple[Distraction, ...]
    this_week_met: bool = False  # this week already holds a met commitment (the page says so)

    @property
    def focused_minutes(self) -> int:
        return sum(d.focused_minutes for d in self.days)

    @property
    def met(self) -> int:
        return sum(d.met for d in self.days)

    @property
    def missed(self) -> int:
        return sum(d.missed for d in self.days)

    def as_json(self) -> dict[str, object]:
        """GET /week.json's body (SYSTEM.md's names)."""
        return {
            "days": [
                {
                    "date": d.date.isoformat(),
                    "focused_minutes": d.focused_minutes,
                    "met": d.met,
                    "missed": d.missed,
                    "planned": d.planned,
                    "done": d.done,
                }
                for d in self.days
            ],
            "week_streak": self.week_streak,
            "top_distractions": [
                {"name": t.name, "minutes": t.minutes} for t in self.top_distractions
            ],
        }


def days(
    ended: Iterable[tuple[date, Outcome | str, int]],
    today: date,
    planned: Mapping[date, tuple[int, int]] | None = None,
) -> tuple[Day, ...]:
    """The last DAYS local days from (local end date, outcome, actual seconds) of each ended
    commitment. Minutes are rounded once per day, as the locked view's "today" line does, so
    the two agree; entries outside the days (a clock set back) are left out. `planned`: each
    day's queue as (planned, done)."""
    planned = planned or {}
    first = today - timedelta(days=DAYS - 1)
    secs: dict[date, int] = {}
    met: dict[date, int] = {}
    missed: dict[date, int] = {}
    for day, outcome, actual_secs in ended:
        if not first <= day <= today:
            continue
        secs[day] = secs.get(day, 0) + max(0, actual_secs)
        if outcome == Outcome.MET:
            met[day] = met.get(day, 0) + 1
        elif outcome == Outcome.MISSED:
            missed[day] = missed.get(day, 0) + 1
    return tuple(
        Day(
            d,
            whole_minutes(secs.get(d, 0)),
            met.get(d, 0),
            missed.get(d, 0),
            *planned.get(d, (0, 0)),
        )
        for d in (first + timedelta(days=n) for n in range(DAYS))
    )


def week_of(day: date) -> date:
    """The Monday that starts the day's week (ISO weeks)."""
    return day - timedelta(days=day.weekday())


def met_weeks(met_days: Iterable[date]) -> set[date]:
    """The weeks (their Mondays) that hold a met commitment."""
    return {week_of(d) for d in met_days}


def week_streak(weeks: set[date], today: date) -> int:
    """Weeks in a row with at least one met commitment (`met_weeks`), this one included.

    A week streak, not a daily one (daily streaks cause stress). This week counts once it
    holds a met commitment; until then it is not over, so it breaks nothing: on Monday
    morning a run of five weeks still says 5, not 0."""
    week = week_of(today)
    if week not in weeks:
        week -= timedelta(weeks=1)
    run = 0
    while week in weeks:
        run += 1
        week -= timedelta(weeks=1)
    return run


def top_distractions(
    off_task_secs: Mapping[str, float], top: int = TOP_DISTRACTIONS
) -> tuple[Distraction, ...]:
    """The names that took the most time judged off task, most first (ties by name); one
    that rounds to no minute at all is left out."""
    ordered = sorted(off_task_secs.items(), key=lambda pair: (-pair[1], pair[0]))
    found = (Distraction(name, whole_minutes(secs)) for name, secs in ordered)
    return tuple(d for d in found if d.minutes > 0)[:top]
