"""The user's calendar: .ics files and https:// addresses read off the request path, the
timed events of today and tomorrow, and what the loop plans around (agenda.py, pure)."""

from antidrift.calendar.agenda import Agenda, Event, agenda_of, soon_text
from antidrift.calendar.fetch import FetchFailed, fetch
from antidrift.calendar.ics import UnreadableCalendar
from antidrift.calendar.keeper import Calendar
from antidrift.calendar.sources import FORMS, CalendarSource, named, parse

__all__ = [
    "FORMS",
    "Agenda",
    "Calendar",
    "Event",
    "FetchFailed",
    "CalendarSource",
    "UnreadableCalendar",
    "agenda_of",
    "fetch",
    "named",
    "parse",
    "soon_text",
]
