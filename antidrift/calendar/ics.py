"""An iCalendar file to the timed events to plan around: parsed with icalendar, Google's
X-WR-TIMEZONE made standard (x-wr-timezone), recurrences expanded with
recurring-ical-events (RRULE, RDATE, EXDATE, moved instances by RECURRENCE-ID), at most
MAX_OCCURRENCES of them. The libraries iterate a series from its start inside one call, so
nothing here can stop a hostile rule: the server runs this in a child process with a CPU
and memory limit and a deadline (calendar/expand.py), never in its own.

Counted: timed events; not all-day ones, not STATUS:CANCELLED, not TRANSP:TRANSPARENT (free),
not those the user declined (PARTSTAT=DECLINED on an attendee with the user's address).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from antidrift.calendar.agenda import Event
from antidrift.core.errors import Error

TITLE_MAX = 200
MAX_OCCURRENCES = 10_000  # per calendar, in the span shown: more is cut short, and said
UNTITLED = "Busy"
# A one-off event this far outside the window cannot reach into it, whatever its time zone
# (offsets stay within a day); longer ones with DTEND are kept by their end.
MARGIN = timedelta(days=2)

_SERIES = ("\nRRULE", "\nRDATE", "\nRECURRENCE-ID", "\nDURATION")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")


class UnreadableCalendar(Error, ValueError):
    """Not an iCalendar file (or one the libraries refuse); the message says why."""


def decode(data: bytes) -> str:
    """A calendar's bytes as text: UTF-8 (a BOM dropped), each bad byte replaced alone."""
    return data.decode("utf-8-sig", errors="replace")


def is_calendar(text: str) -> bool:
    """Whether the text opens as an iCalendar file does."""
    return "BEGIN:VCALENDAR" in text[:4096].upper()


def read_events(
    text: str, start: datetime, end: datetime, email: str = "", limit: int = MAX_OCCURRENCES
) -> tuple[list[Event], bool]:
    """The counted events that overlap start..end (aware), sorted by start; and whether
    there were more occurrences than `limit` (the rest are not read)."""
    if not is_calendar(text):
        raise UnreadableCalendar("it is not an iCalendar file (no BEGIN:VCALENDAR)")
    text = _within(_unfold(text), start.date() - MARGIN, end.date() + MARGIN)
    # Imported here, in the child process that reads calendars: the three libraries are
    # ~8 MiB and ~0.1 s of start-up the server never pays.
    import icalendar
    import recurring_ical_events
    import x_wr_timezone

    found, cut = [], False
    try:
        for calendar in icalendar.Calendar.from_ical(text, multiple=True):
            query = recurring_ical_events.of(x_wr_timezone.to_standard(calendar))
            for series in query.series:
                for occurrence in series.between(start, end):
                    if len(found) == limit:
                        cut = True
                        break
                    found.append(occurrence.as_component(False))
                if cut:
                    break
    except MemoryError:
        raise
    except Exception as exc:  # the libraries raise many kinds on a broken file
        # Named by its kind alone: a parser's message quotes the file's lines.
        raise UnreadableCalendar(f"it cannot be read as iCalendar ({type(exc).__name__})") from None
    events = {e for e in (_event(c, email) for c in found) if e is not None}
    return sorted(e for e in events if e.ends_at > start and e.starts_at < end), cut


def _within(text: str, first: date, last: date) -> str:
    """The file without the one-off events that end before `first` or start after `last`:
    a calendar of years holds thousands, and parsing them costs most of a refresh. Plain
    string search (calendar programs write names in capitals; a file that does not is
    simply parsed whole)."""
    parts = text.split("\nBEGIN:VEVENT")
    kept = [parts[0]]
    for part in parts[1:]:
        end = part.find("\nEND:VEVENT")
        body = part[:end] if end >= 0 else part
        if end < 0 or _reaches(body, first, last):
            kept.append("\nBEGIN:VEVENT" + part)
        else:
            after = part.find("\n", end + 1)
            kept.append(part[after:] if after >= 0 else "")
    return "".join(kept)


def _unfold(text: str) -> str:
    """RFC 5545 folds long lines (a line break and one space or tab)."""
    for fold in ("\r\n ", "\r\n\t", "\n ", "\n\t"):
        text = text.replace(fold, "")
    return text


def _reaches(body: str, first: date, last: date) -> bool:
    """Whether a VEVENT may have an occurrence between first and last (when unsure: yes)."""
    if body.count("\nRRULE") == 1 and not any(name in body for name in _SERIES[1:]):
        at = body.find("\nRRULE")
        rule = body[at : body.find("\n", at + 1) % (len(body) + 1)]
        until = _when(rule, "UNTIL=", "=")
        return until is None or until >= first  # a series ended before: nothing to expand
    if any(name in body for name in _SERIES):
        return True  # a moved instance, extra dates or a duration: always parsed
    begins, ends = _when(body, "\nDTSTART"), _when(body, "\nDTEND")
    if begins is None:
        return True
    return (ends or begins) >= first and begins <= last


def _when(body: str, name: str, mark: str = ":") -> date | None:
    """The date a property (or UNTIL=) gives, from its first eight digits; None if unsure."""
    at = body.find(name)
    if at < 0 or (mark == ":" and body[at + len(name) : at + len(name) + 1] not in (";", ":")):
        return None
    colon = body.find(mark, at + len(name) - len(mark))
    digits = body[colon + 1 : colon + 9]
    if colon < 0 or not digits.isdigit():
        return None
    try:
        return date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))
    except ValueError:
        return None


def _event(component, email: str) -> Event | None:
    start, end = component.get("DTSTART"), component.get("DTEND")
    start = start.dt if start is not None else None
    if not isinstance(start, datetime):
        return None  # all-day (a date) or none
    end = end.dt if end is not None else None
    if not isinstance(end, datetime):
        duration = component.get("DURATION")
        end = start + (duration.dt if duration is not None else timedelta(0))
    if str(component.get("STATUS", "")).upper() == "CANCELLED":
        return None
    if str(component.get("TRANSP", "")).upper() == "TRANSPARENT":
        return None
    if email and _declined(component, email):
        return None
    start, end = _aware(start), _aware(end)
    if end <= start:
        return None  # a moment, not a span: nothing to plan around
    return Event(start, end, title(component.get("SUMMARY")))


def _aware(value: datetime) -> datetime:
    """A floating time is the machine's local time."""
    return value if value.tzinfo is not None else value.astimezone()


def _declined(component, email: str) -> bool:
    attendees = component.get("ATTENDEE")
    if attendees is None:
        return False
    if not isinstance(attendees, list):
        attendees = [attendees]
    wanted = email.strip().lower()
    for attendee in attendees:
        address = str(attendee).strip()
        if address.lower().startswith("mailto:"):
            address = address[7:]
        partstat = str(getattr(attendee, "params", {}).get("PARTSTAT", "")).upper()
        if address.strip().lower() == wanted and partstat == "DECLINED":
            return True
    return False


def title(summary: object) -> str:
    """An event's title as one line of plain text (a file from a URL is anyone's text)."""
    text = " ".join(_CONTROL.sub(" ", str(summary or "")).split())
    if len(text) > TITLE_MAX:
        text = text[: TITLE_MAX - 1].rstrip() + "…"
    return text or UNTITLED
