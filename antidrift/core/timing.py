"""A running commitment's time (pure: times are passed in): pauses, the clock text of the
title, the page and the command line, and the "5 minutes left" moment."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from antidrift.core.domain import Commitment, whole_secs

FIVE_MINUTES_FROM = 15 * 60  # timeboxes this long (or longer) hear "5 minutes left"
FIVE_MINUTES = 5 * 60
SAID_FOR = 60  # the title says it for a minute; the live region once, when it begins


def paused(c: Commitment, now: datetime) -> Commitment:
    """The clock stops at `now` (seconds_left holds what was left then)."""
    return replace(c, paused_at=now)


def resumed(c: Commitment, now: datetime) -> Commitment:
    """The clock runs again where it stood: the deadline moves by the pause exactly (moved
    by the whole seconds counted, it could gain or lose up to half a second on screen);
    paused_secs counts it in whole seconds."""
    if c.paused_at is None:
        return c
    moved = c.deadline + max(now - c.paused_at, timedelta(0))
    gap = whole_secs(c.paused_at, now)
    return replace(c, paused_at=None, paused_secs=c.paused_secs + gap, deadline=moved)


def paused_total(c: Commitment, now: datetime) -> int:
    """Seconds paused so far, a pause in progress included."""
    return c.paused_secs + (whole_secs(c.paused_at, now) if c.paused_at is not None else 0)


def five_minutes_left(c: Commitment, now: datetime) -> bool:
    """The minute from five minutes left, for a timebox (with what was added) of
    FIVE_MINUTES_FROM or more; never while paused."""
    left = c.seconds_left(now)
    in_minute = FIVE_MINUTES - SAID_FOR < left <= FIVE_MINUTES
    return c.total_secs >= FIVE_MINUTES_FROM and in_minute and not c.paused


def clock_text(seconds: int) -> str:
    """MM:SS, or H:MM:SS from an hour up: time left as the page's title and the command
    line show it."""
    minutes, secs = divmod(max(0, seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


# While active, /state (and a JSON answer to a move) says the time left in this header: from
# the server's steady clock, so a client counts down from it by itself. Out of the body, so
# the body (and its ETag) changes only when the state does.
LEFT_HEADER = "AntiDrift-Left-Secs"


def credited(c: Commitment, secs: int) -> Commitment:
    """Time away counted as a pause after the fact: the deadline moves by it and paused_secs
    grows by it, as if Pause had been pressed when input stopped — so it leaves away_secs
    (paused time is not also time away on the clock)."""
    secs = max(0, secs)
    return replace(
        c,
        deadline=c.deadline + timedelta(seconds=secs),
        paused_secs=c.paused_secs + secs,
        away_secs=max(0, c.away_secs - secs),
    )
