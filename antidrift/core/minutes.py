"""One rule for minutes, everywhere a person reads one (the page, the command line, the
status line, the week, Insights, the coach): whole minutes rounded down ("in 16 min" and
"16 min free" at 16.5 minutes); under a minute, seconds ("37 s", never "1 min" beside it).

`minutes_until` for what is ahead (an event, a deadline), `duration_text` for a span of time
that was (a commitment taken, paused, away, a day focused). The countdown clock (mm:ss) and
the 5-minutes-left moment are timing.py's.
"""

from __future__ import annotations

from datetime import datetime


def whole_minutes(seconds: float) -> int:
    """Whole minutes in `seconds`, rounded down (never negative)."""
    return int(max(0.0, seconds) // 60)


def minutes_until(later: datetime, now: datetime) -> int:
    """Whole minutes from `now` until `later`, rounded down (0 once it is reached)."""
    return whole_minutes((later - now).total_seconds())


def duration_text(seconds: float) -> str:
    """A span as a person reads it: "<1 s", "37 s", "16 min", "2 h 05 min"."""
    if 0 < seconds < 1:
        return "<1 s"  # not "0 s" beside a non-zero share
    if seconds < 60:
        return f"{int(max(0.0, seconds))} s"
    minutes = whole_minutes(seconds)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def until_text(later: datetime, now: datetime) -> str:
    """What is ahead, as a person reads it: "in 16 min", "in 40 s", "now"."""
    seconds = (later - now).total_seconds()
    if seconds < 1:
        return "now"
    return f"in {int(seconds)} s" if seconds < 60 else f"in {whole_minutes(seconds)} min"
