"""The history figures: actual time, overrun, met rate, streaks, calibration, time per app."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from antidrift.core import insights
from antidrift.core.domain import Commitment, Outcome
from antidrift.core.insights import Ended, Summary, calibration, streaks, summarize, track_record
from tests.fakes import START

MET, MISSED = Outcome.MET, Outcome.MISSED


def done(planned_min: int, actual_min: float, outcome: Outcome = MET) -> Ended:
    return Ended(planned_min * 60, round(actual_min * 60), outcome)


def taken(ended_at, deadline) -> int:
    return Commitment("c", "a", "b", 600, START, deadline, ended_at).actual_secs


def test_actual_time_is_finish_minus_start():
    end = START + timedelta(minutes=7, seconds=30)
    assert taken(end, START + timedelta(minutes=30)) == 450


def test_actual_time_of_an_extended_commitment_includes_the_extension():
    # Planned 30, extended by 15: the deadline moved, the timebox ran out at 45 minutes.
    c = Commitment("c", "a", "b", 30 * 60, START, START + timedelta(minutes=45))
    c = c.stopped(START + timedelta(hours=2)).ended(START + timedelta(minutes=45), MISSED, "")
    assert insights.ended(c) == Ended(30 * 60, 45 * 60, MISSED)


def test_actual_time_without_an_end_counts_to_the_deadline_and_never_goes_negative():
    deadline = START + timedelta(minutes=10)
    assert taken(None, deadline) == 600
    assert taken(START - timedelta(seconds=5), deadline) == 0


def test_no_commitments_give_no_rates_rather_than_a_division_by_zero():
    s = summarize([])
    assert (s.count, s.met_rate, s.overrun, s.missed) == (0, None, None, 0)
    assert calibration([]) is None
    assert track_record([]) == []
    assert insights.app_time({}) == []
    assert insights.app_time({"idle": 0.0}) == []


def test_one_commitment():
    s = summarize([done(30, 45, MISSED)])
    assert (s.count, s.met, s.missed, s.met_rate, s.overrun) == (1, 0, 1, 0.0, 1.5)


def test_overrun_is_a_ratio_of_totals_not_a_mean_of_ratios():
    # A 1-minute plan that took 10 does not swamp two hours planned and kept.
    s = summarize([done(1, 10), done(120, 120)])
    assert s.overrun == pytest.approx((10 + 120) / (1 + 120))


def test_thousands_of_commitments():
    items = [done(30, 40, MET if i % 4 else MISSED) for i in range(5000)]
    s = summarize(items)
    assert (s.count, s.met, s.met_rate) == (5000, 3750, 0.75)
    assert s.overrun == pytest.approx(40 / 30)
    assert calibration(items).sentence() == "Your 30-minute plans took 40 minutes on average."


@given(
    st.lists(
        st.tuples(st.integers(1, 480), st.integers(0, 600 * 60), st.sampled_from([MET, MISSED])),
        max_size=60,
    )
)
def test_summary_figures_stay_in_range_for_any_history(rows):
    items = [Ended(p * 60, a, o) for p, a, o in rows]
    s = summarize(items)
    assert s == Summary(
        len(items),
        sum(o is MET for _, _, o in rows),
        sum(p * 60 for p, _, _ in rows),
        sum(a for _, a, _ in rows),
    )
    if items:
        assert 0.0 <= s.met_rate <= 1.0
        assert s.overrun >= 0.0
    else:
        assert s.met_rate is None and s.overrun is None


@pytest.mark.parametrize(
    ("outcomes", "current", "longest"),
    [
        ([], 0, 0),
        ([MET], 1, 1),
        ([MISSED], 0, 0),
        ([MET, MET, MISSED, MET, MET, MET], 2, 3),
        ([MISSED, MET, MET], 0, 2),
        (["met", "met"], 2, 2),
    ],
)
def test_streaks_count_met_in_a_row_newest_first(outcomes, current, longest):
    assert streaks(outcomes) == insights.Streaks(current, longest)


@given(st.lists(st.sampled_from([MET, MISSED]), max_size=80))
def test_a_streak_is_never_longer_than_the_met_count(outcomes):
    s = streaks(outcomes)
    assert 0 <= s.current <= s.longest <= outcomes.count(MET)


def test_calibration_says_its_unit_and_one_minute_in_the_singular():
    assert (
        calibration([done(1, 1)] * 3).sentence() == "Your 1-minute plans took 1 minute on average."
    )


def test_calibration_never_says_a_plan_took_0():
    cal = calibration([done(5, 0.2), done(5, 0.4), done(5, 0.1)])
    assert cal.sentence() == "Your 5-minute plans took under a minute on average."


def test_calibration_waits_for_three_ended_commitments():
    assert calibration([done(30, 41), done(30, 41)]) is None
    assert track_record([done(30, 41), done(30, 41)]) == []
    cal = calibration([done(30, 41), done(30, 41), done(30, 41)])
    assert (cal.planned_minutes, cal.actual_minutes, cal.count) == (30, 41, 3)


def test_calibration_speaks_of_the_most_frequent_plan_size():
    recent = [done(25, 30), done(60, 50), done(25, 40), done(60, 70), done(25, 32)]
    cal = calibration(recent)
    assert (cal.planned_minutes, cal.actual_minutes, cal.count) == (25, 34, 3)
    assert cal.sentence() == "Your 25-minute plans took 34 minutes on average."


def test_calibration_ties_go_to_the_most_recent_size_and_under_runs_are_said_too():
    cal = calibration([done(45, 12), done(30, 30), done(45, 12), done(30, 30), done(10, 10)])
    assert cal.sentence() == "Your 45-minute plans took 12 minutes on average."
    assert cal.overrun == pytest.approx((12 + 30 + 12 + 30 + 10) / (45 + 30 + 45 + 30 + 10))


def test_calibration_of_a_single_plan_of_its_size_does_not_say_on_average():
    cal = calibration([done(30, 41), done(60, 50), done(90, 80)])
    assert cal.sentence() == "Your 30-minute plan took 41 minutes."


def test_calibration_looks_only_at_recent_commitments():
    recent = [done(30, 45)] * insights.CALIBRATION_WINDOW + [done(10, 10)] * 100
    assert calibration(recent).planned_minutes == 30


def test_track_record_is_numbers_and_outcomes_newest_first_a_few_lines():
    recent = [done(30, 41, MISSED), done(25, 20), done(60, 61)] + [done(5, 5)] * 10
    lines = track_record(recent)
    assert len(lines) == insights.TRACK_RECORD_LINES
    assert lines[0] == insights.TrackRecordLine(30, 41, "missed")
    assert lines[1] == insights.TrackRecordLine(25, 20, "met")


def test_time_per_app_is_largest_first_with_the_tail_summed():
    totals = {f"app{i}": float(i) for i in range(1, 12)}
    shares = insights.app_time(totals, top=3)
    assert [s.app for s in shares] == ["app11", "app10", "app9", insights.OTHER_APPS]
    assert shares[-1].seconds == sum(range(1, 9))
    assert sum(s.fraction for s in shares) == pytest.approx(1.0)


def test_time_per_app_never_hides_a_single_app_under_other():
    shares = insights.app_time({"a": 3.0, "b": 2.0, "c": 1.0}, top=2)
    assert [s.app for s in shares] == ["a", "b", "c"]
