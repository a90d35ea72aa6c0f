"""The calendar's widgets: the next event while planning (and whether the minutes typed run
into it), the meeting five minutes before it and while it runs, the clash while active."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from antidrift.calendar import Event
from antidrift.core.domain import MAX_MINUTES, MIN_MINUTES
from antidrift.core.minutes import until_text
from antidrift.session.snapshot import Snapshot
from antidrift.web.widgets import Widget


@dataclass(frozen=True)
class NextEvent(Widget):
    """Planning: the next calendar event and the minutes free before it (id="next-event"),
    or the event under way; a calendar that could not be read is one quiet line in it."""

    name = "next_event"
    event: Event | None = None
    free: int | None = None  # minutes before it; the minutes field is offered this
    now: Event | None = None  # an event under way
    problem: str | None = None
    minutes: int | None = None  # as typed in the plan, when they run into the next event
    clash_secs: int = 0  # how far into it, said before Start

    @classmethod
    def of(cls, snap: Snapshot) -> NextEvent:
        agenda = snap.calendar
        minutes = _typed_minutes(snap.draft.timebox_minutes if snap.draft else None)
        clash = agenda.clash(snap.now + timedelta(minutes=minutes), snap.now) if minutes else None
        return cls(
            agenda.next,
            agenda.free_minutes(snap.now),
            agenda.now,
            agenda.problem,
            minutes if clash else None,
            clash[1] if clash else 0,
        )


def _typed_minutes(text: object) -> int | None:
    """The plan's minutes as typed, when they are a timebox (else None: nothing to say)."""
    if not isinstance(text, str) or not text.strip().isascii() or not text.strip().isdigit():
        return None
    value = int(text.strip()[:4])
    return value if MIN_MINUTES <= value <= MAX_MINUTES else None


@dataclass(frozen=True)
class Meeting(Widget):
    """Active: the calendar event five minutes before it and while it runs (id="meeting"),
    and during it **Pause for it** (the clock otherwise runs through the meeting)."""

    name = "meeting"
    soon: Event | None = None
    now: Event | None = None
    paused: bool = False
    in_text: str = ""  # "in 4 min"

    @classmethod
    def of(cls, snap: Snapshot) -> Meeting:
        agenda, c = snap.calendar, snap.commitment
        paused = c is not None and c.paused
        if agenda.now is not None:
            return cls(now=agenda.now, paused=paused)
        if (soon := agenda.upcoming(snap.now)) is not None:
            return cls(soon=soon, paused=paused, in_text=until_text(soon.starts_at, snap.now))
        return cls()


@dataclass(frozen=True)
class EventClash(Widget):
    """Active: the calendar event the timebox runs into (id="event-clash"), by how much."""

    name = "event_clash"
    event: Event | None = None
    secs: int = 0  # how far into it the timebox runs
    through: bool = False  # the timebox outlasts the event: not "N min into" it

    @classmethod
    def of(cls, snap: Snapshot) -> EventClash:
        c = snap.commitment
        clash = snap.calendar.clash(c.deadline, snap.now) if c is not None else None
        if clash is None:
            return cls()
        return cls(*clash, through=c.deadline >= clash[0].ends_at)
