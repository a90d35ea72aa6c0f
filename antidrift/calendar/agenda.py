"""The day's events as the loop sees them (pure: times are passed in): the event under way,
the next one, the free minutes before it, the clash of a timebox with it, "in 5 min"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from antidrift.core.minutes import minutes_until

SOON = 5 * 60  # "Team standup in 5 min": said in the minute before five minutes before,
SAID_FOR = 60  # when whole minutes rounded down (the one rule) make it 5 all through


@dataclass(frozen=True, order=True)
class Event:
    """One timed occurrence to plan around (aware times; the title is one line of text)."""

    starts_at: datetime
    ends_at: datetime
    title: str

    def key(self) -> tuple[str, str]:
        return (self.title, self.starts_at.isoformat())


@dataclass(frozen=True)
class Agenda:
    """What the calendar says at one instant: the event under way, the next, any problem."""

    now: Event | None = None
    next: Event | None = None
    problem: str | None = None  # one quiet line: a calendar that could not be read

    def in_minutes(self, at: datetime) -> int | None:
        """Whole minutes until the next event, rounded down (core/minutes.py: the one rule;
        0 once it starts)."""
        if self.next is None:
            return None
        return minutes_until(self.next.starts_at, at)

    def free_minutes(self, at: datetime) -> int | None:
        """Whole minutes free before the next event, rounded down; None without one (or
        while an event runs: nothing is free)."""
        if self.next is None or self.now is not None:
            return None
        return minutes_until(self.next.starts_at, at)

    def clash(self, deadline: datetime, at: datetime) -> tuple[Event, int] | None:
        """The next event a timebox ending at `deadline` runs into, and by how many seconds
        (said as a duration: "10 min", "40 s"); None when it ends before the event starts."""
        if self.next is None or self.next.starts_at >= deadline or self.next.starts_at <= at:
            return None
        return self.next, int((deadline - self.next.starts_at).total_seconds())

    def upcoming(self, at: datetime) -> Event | None:
        """The next event, from when it is said to be five minutes away: the page shows it."""
        if self.next is None:
            return None
        left = (self.next.starts_at - at).total_seconds()
        return self.next if 0 < left < SOON + SAID_FOR else None

    def soon(self, at: datetime) -> Event | None:
        """The next event, in the minute before it is five minutes away (said "in 5 min")."""
        if self.next is None:
            return None
        left = (self.next.starts_at - at).total_seconds()
        return self.next if SOON <= left < SOON + SAID_FOR else None


def day_end(at: datetime) -> datetime:
    """The end of tomorrow in the machine's time zone: events after it are not counted."""
    local = at.astimezone()
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight + timedelta(days=2)).astimezone(at.tzinfo)


def agenda_of(events: Iterable[Event], at: datetime, problem: str | None = None) -> Agenda:
    """The event under way at `at` (the one that started first) and the next to start, from
    today's and tomorrow's events (sorted or not)."""
    until = day_end(at)
    now = nxt = None
    for event in events:
        if event.starts_at <= at < event.ends_at:
            if now is None or event.starts_at < now.starts_at:
                now = event
        elif at < event.starts_at < until and (nxt is None or event.starts_at < nxt.starts_at):
            nxt = event
    return Agenda(now, nxt, problem)


def soon_text(event: Event) -> str:
    """The five-minute warning, as the title, the live region and the notification say it."""
    return f"{event.title} in 5 min"
