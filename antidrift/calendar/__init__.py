"""The user's calendar: .ics files and https:// addresses read off the request path, the
timed events of today and tomorrow, and what the loop plans around (agenda.py, pure).

The names below are each module's, loaded at their first use (PEP 562): the settings check
that every start runs reads only the setting's syntax (sources.py), never the keeper or its
reading (issue 40: the footprint)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The function `fetch` is its module's (antidrift.calendar.fetch.fetch): a name of the package
# would be shadowed by the module once the keeper imports it, and loading it here would load
# http.client, ssl and email at every start.

if TYPE_CHECKING:
    from antidrift.calendar.agenda import Agenda, Event, agenda_of, soon_text
    from antidrift.calendar.fetch import FetchFailed
    from antidrift.calendar.ics import UnreadableCalendar
    from antidrift.calendar.keeper import Calendar
    from antidrift.calendar.sources import FORMS, CalendarSource, named, parse

_AGENDA = frozenset({"Agenda", "Event", "agenda_of", "soon_text"})
_SOURCES = frozenset({"FORMS", "CalendarSource", "named", "parse"})


def __getattr__(name: str) -> Any:
    if name in _AGENDA:
        from antidrift.calendar import agenda as module
    elif name == "FetchFailed":
        from antidrift.calendar import fetch as module
    elif name == "UnreadableCalendar":
        from antidrift.calendar import ics as module
    elif name == "Calendar":
        from antidrift.calendar import keeper as module
    elif name in _SOURCES:
        from antidrift.calendar import sources as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(module, name)
    return value


__all__ = [
    "FORMS",
    "Agenda",
    "Calendar",
    "Event",
    "FetchFailed",
    "CalendarSource",
    "UnreadableCalendar",
    "agenda_of",
    "named",
    "parse",
    "soon_text",
]
