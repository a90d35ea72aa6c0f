"""History figures, pure: actual time, overrun, met rate, streaks, calibration, time per app.

Nothing here touches Flask, SQLite or the clock. The store computes the same totals in SQL
for a long history (tests hold the two equal); these functions define what they mean.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple

from antidrift.core.domain import (
    AWAY_MARK,
    Commitment,
    Outcome,
    Share,
    WindowSample,
    app_shares,
    time_shares,
)
from antidrift.core.minutes import whole_minutes

# Calibration speaks only once this many commitments have ended: fewer is anecdote.
CALIBRATION_MIN_ENDED = 3
# How far back calibration and the coach's track record look (recent habits, not old ones).
CALIBRATION_WINDOW = 20
TRACK_RECORD_LINES = 5
OTHER_APPS = "other apps"


class Ended(NamedTuple):
    """One ended commitment as the figures see it: what was planned, what it took.

    A NamedTuple, not a dataclass: the insights page builds one per commitment ever ended."""

    planned_secs: int
    actual_secs: int
    outcome: Outcome


def ended(c: Commitment) -> Ended:
    """The figures' view of a commitment from the history."""
    return Ended(
        c.timebox_secs,
        c.actual_secs,
        c.outcome or Outcome.MISSED,
    )


def ratio(part: float, whole: float) -> float | None:
    """part / whole, or None when there is nothing to divide by."""
    return part / whole if whole else None


@dataclass(frozen=True)
class Summary:
    """The headline figures over a set of ended commitments."""

    count: int = 0
    met: int = 0
    planned_secs: int = 0
    actual_secs: int = 0

    @property
    def missed(self) -> int:
        return self.count - self.met

    @property
    def met_rate(self) -> float | None:
        """Share of commitments met (0-1); None without any."""
        return ratio(self.met, self.count)

    @property
    def overrun(self) -> float | None:
        """Actual over planned time, in total (1.2 = plans took 20 % longer); None without any.

        A ratio of totals, not a mean of ratios: one 1-minute plan that took 10 must not
        outweigh a week of well-planned hours."""
        return ratio(self.actual_secs, self.planned_secs)


def summarize(items: Iterable[Ended]) -> Summary:
    count = met = planned = actual = 0
    for item in items:
        if item.outcome is Outcome.DISCARDED:
            continue
        count += 1
        met += item.outcome is Outcome.MET
        planned += item.planned_secs
        actual += item.actual_secs
    return Summary(count, met, planned, actual)


@dataclass(frozen=True)
class Streaks:
    """Runs of met commitments: the one going on now and the longest ever."""

    current: int = 0
    longest: int = 0


def streaks(outcomes_newest_first: Iterable[Outcome | str]) -> Streaks:
    """Met in a row. A missed commitment breaks a run; nothing else does (days off do not)."""
    current = longest = run = 0
    leading = True
    for outcome in outcomes_newest_first:
        if outcome == Outcome.DISCARDED:  # neither met nor missed: it neither adds nor breaks
            continue
        if outcome == Outcome.MET:
            run += 1
        else:
            if leading:
                current, leading = run, False
            longest, run = max(longest, run), 0
    if leading:
        current = run
    return Streaks(current, max(longest, run))


@dataclass(frozen=True)
class Calibration:
    """How long the user's plans of a typical size really take."""

    planned_minutes: int
    actual_minutes: int  # the average, rounded
    count: int  # ended commitments of that planned size the average is taken over
    overrun: float  # over every recent commitment, not only this size

    def sentence(self) -> str:
        plans = "plans" if self.count > 1 else "plan"
        average = " on average" if self.count > 1 else ""
        n = self.actual_minutes
        took = f"{n} minute{'s' if n != 1 else ''}" if n else "under a minute"
        return f"Your {self.planned_minutes}-minute {plans} took {took}{average}."


def calibration(recent_newest_first: Sequence[Ended]) -> Calibration | None:
    """Calibration from the recent history, or None before CALIBRATION_MIN_ENDED have ended.

    The size spoken of is the user's most frequent plan (ties: the most recent one), the
    number people reach for by habit and the one most worth correcting."""
    recent = list(recent_newest_first[:CALIBRATION_WINDOW])
    if len(recent) < CALIBRATION_MIN_ENDED:
        return None
    sizes = [_minutes(item.planned_secs) for item in recent]
    counts = Counter(sizes)
    top = max(counts.values())
    size = next(s for s in sizes if counts[s] == top)
    same = [item for item in recent if _minutes(item.planned_secs) == size]
    average = sum(item.actual_secs for item in same) / len(same)
    overrun = summarize(recent).overrun
    return Calibration(size, whole_minutes(average), len(same), overrun or 0.0)


@dataclass(frozen=True)
class TrackRecordLine:
    """One past commitment as the coach's prompt carries it: numbers only, no titles."""

    planned_minutes: int
    actual_minutes: int
    outcome: str


def track_record(recent_newest_first: Sequence[Ended]) -> list[TrackRecordLine]:
    """The last few commitments for the coach, or none before calibration may speak."""
    if len(recent_newest_first) < CALIBRATION_MIN_ENDED:
        return []
    return [
        TrackRecordLine(
            _minutes(item.planned_secs), whole_minutes(item.actual_secs), item.outcome.value
        )
        for item in recent_newest_first[:TRACK_RECORD_LINES]
    ]


def app_time(seconds_per_app: Mapping[str, float], top: int = 8) -> list[Share]:
    """Time per app across commitments, largest first; the tail beyond `top` summed as one."""
    ordered = sorted(
        ((app, secs) for app, secs in seconds_per_app.items() if secs > 0),
        key=lambda pair: (-pair[1], pair[0]),
    )
    whole = sum(secs for _, secs in ordered)
    head, tail = ordered[:top], ordered[top:]
    if len(tail) == 1:
        head, tail = ordered, []  # "other apps" for a single app would hide its name
    shares = [Share(app, "", secs, ratio(secs, whole) or 0.0) for app, secs in head]
    if tail:
        rest = sum(secs for _, secs in tail)
        shares.append(Share(OTHER_APPS, "", rest, ratio(rest, whole) or 0.0))
    return shares


@dataclass(frozen=True)
class WindowTime:
    """Where one commitment's focus went: its top windows, every app, how many samples."""

    windows: tuple[Share, ...] = ()
    apps: tuple[Share, ...] = ()
    sample_count: int = 0

    @classmethod
    def of(
        cls,
        windows: Iterable[tuple[str, str, float]],
        apps: Iterable[tuple[str, float]],
        whole: float,
        sample_count: int,
    ) -> WindowTime:
        """From summed seconds (the store's SQL); fractions are of `whole`."""
        tops = sorted(
            (Share(app, title, secs, ratio(secs, whole) or 0.0) for app, title, secs in windows),
            key=lambda s: (-s.seconds, s.app, s.title),
        )
        per_app = sorted(
            (Share(app, "", secs, ratio(secs, whole) or 0.0) for app, secs in apps),
            key=lambda s: (-s.seconds, s.app),
        )
        return cls(tuple(tops), tuple(per_app), sample_count)


def place_of(sample: WindowSample) -> str:
    """Where a sample's time went as review and insights count it: a browser page's site,
    else the app."""
    return sample.site or sample.app


def window_time(samples: Sequence[WindowSample], until: datetime, top: int = 12) -> WindowTime:
    """The same from samples in memory (the reference the SQL is tested against); the
    per-app time counts a browser's time per site."""
    shares = time_shares(samples, until)
    places = time_shares([replace(s, app=place_of(s)) for s in samples], until)
    return WindowTime(tuple(shares[:top]), tuple(app_shares(places)), len(samples))


def _minutes(secs: int) -> int:
    return max(1, whole_minutes(secs))


# Seconds per (app, title, place): a window's time by where it went (place_of).
PlaceTime = dict[tuple[str, str, str], float]


def place_time(samples: Sequence[WindowSample], until: datetime) -> PlaceTime:
    """Seconds per (app, title, place) (the reference the store's SQL is tested against):
    each window's time split by where it went, a browser page's site, else the app. Each
    sample's span is the one time_shares gives it (keyed by its index alone)."""
    ordered = sorted(samples, key=lambda s: s.at)
    spans = time_shares([replace(s, app=str(n), title="") for n, s in enumerate(ordered)], until)
    found: PlaceTime = {}
    for share in spans:
        s = ordered[int(share.app)]
        if (s.app, s.title) != AWAY_MARK:  # time away is no window's
            key = (s.app, s.title, place_of(s))
            found[key] = found.get(key, 0.0) + share.seconds
    return found
