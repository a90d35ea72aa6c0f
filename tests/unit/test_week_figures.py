"""The week's pure figures (antidrift/core/week.py): days, the weekly streak, distractions."""

from __future__ import annotations

from datetime import date, timedelta

from antidrift.core.domain import Outcome
from antidrift.core.week import days, met_weeks, top_distractions, week_of, week_streak

TODAY = date(2026, 3, 5)  # a Thursday
MET, MISSED = Outcome.MET, Outcome.MISSED


def test_minutes_are_rounded_once_per_day_as_the_today_line_rounds():
    found = days([(TODAY, MET, 90), (TODAY, MISSED, 90)], TODAY)
    assert found[-1].focused_minutes == 3  # 180 s; rounding each 90 s would say 4
    assert (found[-1].met, found[-1].missed) == (1, 1)


def test_seven_days_oldest_first_and_nothing_outside_them():
    found = days(
        [(TODAY - timedelta(days=7), MET, 600), (TODAY + timedelta(days=1), MET, 600)], TODAY
    )
    assert [d.date for d in found] == [TODAY - timedelta(days=6 - n) for n in range(7)]
    assert sum(d.focused_minutes + d.met for d in found) == 0


def test_weeks_start_on_monday():
    assert week_of(date(2026, 3, 2)) == week_of(date(2026, 3, 8)) == date(2026, 3, 2)
    assert week_of(date(2026, 3, 9)) == date(2026, 3, 9)


def test_the_streak_runs_back_from_this_week_and_this_week_breaks_nothing_yet():
    weeks = met_weeks([date(2026, 2, 16), date(2026, 2, 23), date(2026, 2, 25)])
    assert week_streak(weeks, date(2026, 2, 27)) == 2  # this week (23 Feb) and last
    assert week_streak(weeks, date(2026, 3, 2)) == 2  # a new week, nothing met yet
    assert week_streak(weeks, date(2026, 3, 9)) == 0  # a whole week without one
    assert week_streak(set(), TODAY) == 0


def test_distractions_most_first_ties_by_name_and_no_zero_minutes():
    found = top_distractions({"slack": 120, "firefox": 300, "chat": 120, "blip": 20}, top=3)
    assert [(d.name, d.minutes) for d in found] == [("firefox", 5), ("chat", 2), ("slack", 2)]
