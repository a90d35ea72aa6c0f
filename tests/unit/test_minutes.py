"""One rule for minutes (the page 0.6, item 4): whole minutes rounded down, under a minute in
seconds — the same number on the page, the command line, the status line and the coach."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from antidrift.calendar.agenda import Event, agenda_of
from antidrift.core.minutes import duration_text, minutes_until, until_text, whole_minutes

NOW = datetime(2026, 3, 2, 13, 20, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "minutes"), [(0, 0), (59.9, 0), (60, 1), (990, 16), (-5, 0), (7200, 120)]
)
def test_whole_minutes_round_down(seconds, minutes):
    assert whole_minutes(seconds) == minutes


@pytest.mark.parametrize(
    ("seconds", "said"), [(990, "in 16 min"), (40, "in 40 s"), (0.5, "now"), (-3, "now")]
)
def test_what_is_ahead_is_said_by_the_same_rule(seconds, said):
    assert until_text(NOW + timedelta(seconds=seconds), NOW) == said


def test_the_free_minutes_and_the_minutes_until_an_event_are_one_number():
    """Planning said "15 min free" while `antidrift status` said "in 16 min"."""
    standup = Event(NOW + timedelta(minutes=16, seconds=30), NOW + timedelta(hours=1), "Standup")
    agenda = agenda_of([standup], NOW)
    assert agenda.free_minutes(NOW) == agenda.in_minutes(NOW) == 16
    assert minutes_until(standup.starts_at, NOW) == 16


def test_a_duration_under_a_minute_is_seconds_and_never_a_rounded_up_minute():
    """The review showed "2 min" for 1.5 minutes beside "37 s"."""
    assert duration_text(90) == "1 min" and duration_text(37) == "37 s"
    assert duration_text(3599) == "59 min" and duration_text(3660) == "1 h 01 min"
