"""iCalendar files as calendar programs write them, for the calendar tests: a VEVENT per
call, wrapped in a VCALENDAR (with a VTIMEZONE or Google's X-WR-TIMEZONE when asked)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

# America/New_York as Thunderbird and Outlook export it (the 2007 US rules).
NEW_YORK = """BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
DTSTART:19700308T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
DTSTART:19701101T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
END:STANDARD
END:VTIMEZONE"""


def utc(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def local(when: datetime) -> str:
    """A time as written beside a TZID (or floating): no Z."""
    return when.strftime("%Y%m%dT%H%M%S")


def event(
    uid: str,
    summary: str,
    start: datetime | date | str,
    end: datetime | date | str | None = None,
    *lines: str,
    minutes: int = 30,
) -> str:
    """One VEVENT; aware times are written in UTC, strings as given (e.g. ';TZID=…:…')."""

    def prop(name: str, value) -> str:
        if isinstance(value, str):
            return f"{name}{value}" if value[:1] in ";:" else f"{name}:{value}"
        if isinstance(value, datetime):
            return f"{name}:{utc(value)}"
        return f"{name};VALUE=DATE:{value:%Y%m%d}"

    if end is None and isinstance(start, datetime):
        end = start + timedelta(minutes=minutes)
    body = [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20260101T000000Z",
        prop("DTSTART", start),
        *([prop("DTEND", end)] if end is not None else []),
        f"SUMMARY:{summary}",
        *lines,
        "END:VEVENT",
    ]
    return "\r\n".join(body)


def calendar(*events: str, header: tuple[str, ...] = (), zones: tuple[str, ...] = ()) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//AntiDrift tests//EN", *header]
    return "\r\n".join([*lines, *zones, *events, "END:VCALENDAR"]) + "\r\n"


def write(path: Path, *events: str, **kwargs) -> Path:
    path.write_text(calendar(*events, **kwargs), encoding="utf-8", newline="")
    return path


def many(count: int, around: datetime, every: timedelta = timedelta(hours=7)) -> str:
    """A calendar of years: `count` events before and after `around`, every 50th a series:
    a weekly one still running, a daily one that ended after three months (UNTIL), or one of
    300 (COUNT), in turn (the refresh benchmark's file)."""
    first = around - every * (count // 2)
    found = []
    for i in range(count):
        start = first + every * i
        extra: tuple[str, ...] = ()
        if i % 50 == 0:
            rules = (
                "RRULE:FREQ=WEEKLY",
                f"RRULE:FREQ=DAILY;UNTIL={utc(start + timedelta(days=90))}",
                "RRULE:FREQ=DAILY;COUNT=300",
            )
            extra = (rules[(i // 50) % 3],)
        found.append(event(f"e{i}@bench", f"Event {i}", start, None, *extra))
    return calendar(*found)
