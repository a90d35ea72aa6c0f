"""Real iCalendar files, as calendar programs write them, to the events planned around."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import icalendar
import pytest
import recurring_ical_events

from antidrift.calendar import UnreadableCalendar
from antidrift.calendar.ics import decode, read_events
from tests.support.ics import NEW_YORK, calendar, event, many

DAY = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday; New York is on EST until 8 March
TWO_DAYS = (DAY, DAY + timedelta(days=2))


def found(text: str, start=DAY, end=DAY + timedelta(days=2), email: str = ""):
    return [
        (e.title, e.starts_at, e.ends_at)
        for e in read_events(decode(text.encode()), start, end, email)[0]
    ]


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def test_a_daily_series_honours_its_exdate_and_a_moved_instance_once():
    text = calendar(
        event(
            "standup@x",
            "Team standup",
            at(2, 14) - timedelta(days=7),
            None,
            "RRULE:FREQ=DAILY",
            "EXDATE:20260303T140000Z",
            minutes=15,
        ),
        # Today's instance moved an hour later: shown once, at the new time.
        event(
            "standup@x",
            "Team standup (moved)",
            at(2, 15),
            at(2, 15, 15),
            "RECURRENCE-ID:20260302T140000Z",
        ),
    )
    assert found(text) == [("Team standup (moved)", at(2, 15), at(2, 15, 15))]
    # The day after tomorrow the series goes on as it was.
    later = found(text, DAY + timedelta(days=2), DAY + timedelta(days=3))
    assert later == [("Team standup", at(4, 14), at(4, 14, 15))]


def test_a_vtimezone_time_is_read_in_its_zone():
    text = calendar(
        event(
            "ny@x",
            "Call with New York",
            ";TZID=America/New_York:20260302T090000",
            ";TZID=America/New_York:20260302T093000",
        ),
        zones=(NEW_YORK,),
    )
    assert found(text) == [("Call with New York", at(2, 14), at(2, 14, 30))]


def test_google_x_wr_timezone_keeps_a_weekly_event_at_its_local_hour_across_dst():
    # Google writes the series in UTC and the calendar's zone in X-WR-TIMEZONE: 9:00 in New
    # York is 14:00 UTC in winter and 13:00 UTC after 8 March. Read without the fix, the
    # series would stay at 14:00 UTC (10:00 in New York).
    text = calendar(
        event("weekly@google.com", "Planning", at(2, 14), at(2, 15), "RRULE:FREQ=WEEKLY"),
        header=("X-WR-CALNAME:Work", "X-WR-TIMEZONE:America/New_York"),
    )
    week_later = found(text, at(9, 0), at(10, 0))
    assert week_later == [("Planning", at(9, 13), at(9, 14))]


def test_all_day_cancelled_transparent_and_declined_events_are_not_planned_around():
    me = "me@example.org"
    text = calendar(
        event("allday@x", "Holiday", date(2026, 3, 2), date(2026, 3, 3)),
        event("cancel@x", "Cancelled sync", at(2, 10), None, "STATUS:CANCELLED"),
        event("free@x", "Focus (free)", at(2, 11), None, "TRANSP:TRANSPARENT"),
        event(
            "declined@x",
            "Declined review",
            at(2, 12),
            None,
            f"ATTENDEE;CN=Me;PARTSTAT=DECLINED:mailto:{me.upper()}",
            "ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example.org",
        ),
        event(
            "accepted@x",
            "Accepted review",
            at(2, 13),
            None,
            f"ATTENDEE;PARTSTAT=ACCEPTED:mailto:{me}",
            "ATTENDEE;PARTSTAT=DECLINED:mailto:someone@example.org",
        ),
        event("busy@x", "Opaque", at(2, 16), None, "TRANSP:OPAQUE", "STATUS:CONFIRMED"),
    )
    titles = [t for t, _, _ in found(text, email=me)]
    assert titles == ["Accepted review", "Opaque"]
    # Without the user's address nobody's answer is theirs: the declined one counts.
    assert [t for t, _, _ in found(text)] == ["Declined review", "Accepted review", "Opaque"]


def test_a_cancelled_instance_of_a_series_is_dropped_and_the_rest_kept():
    text = calendar(
        event("s@x", "Sync", at(1, 10), None, "RRULE:FREQ=DAILY;COUNT=5"),
        event("s@x", "Sync", at(2, 10), None, "RECURRENCE-ID:20260302T100000Z", "STATUS:CANCELLED"),
    )
    assert [s for _, s, _ in found(text)] == [at(3, 10)]


def test_an_old_long_event_that_reaches_into_the_window_still_counts():
    # Started five days ago, ends tomorrow: the quick filter must not drop it by its start.
    text = calendar(event("conf@x", "Conference", at(2, 9) - timedelta(days=5), at(3, 17)))
    assert found(text) == [("Conference", at(2, 9) - timedelta(days=5), at(3, 17))]


def test_a_big_calendar_gives_the_same_events_filtered_or_not():
    text = many(1200, DAY, every=timedelta(hours=3))
    quick = found(text)
    assert len(quick) > 10, "the window holds some of the events, and some series"
    # The quick filter only drops what cannot reach the window: the libraries, given the
    # whole file, find the same occurrences.
    whole = recurring_ical_events.of(icalendar.Calendar.from_ical(text)).between(*TWO_DAYS)
    assert sorted((str(e["SUMMARY"]), e["DTSTART"].dt) for e in whole) == sorted(
        (title, start) for title, start, _ in quick
    )


def test_a_title_is_one_line_of_plain_text():
    text = calendar(event("t@x", "Line one\\nline two\u202e\x07 ", at(2, 10)))
    assert found(text)[0][0] == "Line one line two"


def test_an_untitled_event_is_busy():
    text = calendar(event("t@x", "", at(2, 10)))
    assert found(text)[0][0] == "Busy"


@pytest.mark.parametrize(
    "data",
    [b"<html>login</html>", b"", "BEGIN:VCALENDAR\r\nno".encode("utf-16")],
)
def test_what_is_no_calendar_is_said_so(data):
    with pytest.raises(UnreadableCalendar):
        read_events(decode(data), *TWO_DAYS)
