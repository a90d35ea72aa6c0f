"""The pure core: validation, evidence maths, health, redaction."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.core.domain import (
    EXCLUDED_TITLE,
    MAX_SAMPLE_SPAN,
    Commitment,
    Health,
    Outcome,
    Share,
    ValidationError,
    WindowSample,
    app_shares,
    evidence_health,
    parse_minutes,
    redact,
    redact_window,
    time_shares,
    validate_intent,
    validate_plan,
    validate_review,
    validate_window,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# -- plan validation ----------------------------------------------------------------------------


def test_plan_texts_are_trimmed_and_minutes_become_seconds():
    plan = validate_plan("  Write the intro  ", "\tIntro in the doc\n", "25")
    assert plan.next_action == "Write the intro"
    assert plan.success_condition == "Intro in the doc"
    assert plan.timebox_secs == 25 * 60


@pytest.mark.parametrize("blank", ["", "   ", "\n\t ", None])
def test_plan_rejects_an_empty_next_action(blank):
    with pytest.raises(ValidationError) as err:
        validate_plan(blank, "done", 10)
    assert err.value.field == "next_action"
    assert "Next action" in err.value.message


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_plan_rejects_an_empty_success_condition(blank):
    with pytest.raises(ValidationError) as err:
        validate_plan("do it", blank, 10)
    assert err.value.field == "success_condition"


def test_plan_text_of_exactly_500_characters_is_accepted_after_trimming():
    plan = validate_plan("  " + "a" * 500 + "  ", "b" * 500, 1)
    assert len(plan.next_action) == 500
    assert len(plan.success_condition) == 500


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_plan_text_over_500_characters_is_rejected_with_its_length(field):
    values = {"next_action": "a", "success_condition": "b"}
    values[field] = "x" * 501
    with pytest.raises(ValidationError) as err:
        validate_plan(values["next_action"], values["success_condition"], 5)
    assert err.value.field == field
    assert "501" in err.value.message and "500" in err.value.message


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_plan_text_with_a_nul_is_rejected(field):
    values = {"next_action": "a", "success_condition": "b"}
    values[field] = "bad\x00text"
    with pytest.raises(ValidationError) as err:
        validate_plan(values["next_action"], values["success_condition"], 5)
    assert err.value.field == field
    assert "NUL" in err.value.message


@pytest.mark.parametrize("value", [123, ["a"], {"a": 1}, 1.5])
def test_plan_text_that_is_not_a_string_is_rejected(value):
    with pytest.raises(ValidationError):
        validate_plan(value, "done", 5)


@pytest.mark.parametrize(
    ("value", "minutes"),
    [("1", 1), ("480", 480), (" 25 ", 25), (1, 1), (480, 480), (30.0, 30), ("0025", 25)],
)
def test_minutes_accepts_strings_ints_and_integral_floats_in_range(value, minutes):
    assert parse_minutes(value) == minutes


@pytest.mark.parametrize(
    "value",
    [
        "0",
        "481",
        "-5",
        "2.5",
        "25.0",
        "1e2",
        "abc",
        "",
        "  ",
        "１０",
        0,
        481,
        -1,
        2.5,
        0.0,
        481.0,
        float("nan"),
        float("inf"),
        True,
        False,
        None,
        [25],
        {"m": 25},
    ],
)
def test_minutes_outside_1_to_480_or_not_whole_are_rejected(value):
    with pytest.raises(ValidationError) as err:
        parse_minutes(value)
    assert err.value.field == "timebox_minutes"
    assert "1 to 480" in err.value.message


def test_bool_is_not_a_number_of_minutes_even_though_true_equals_1():
    with pytest.raises(ValidationError):
        validate_plan("a", "b", True)


# -- intent, review, window ---------------------------------------------------------------------


def test_intent_is_trimmed_and_may_be_2000_characters():
    assert validate_intent("  sort the inbox  ") == "sort the inbox"
    assert len(validate_intent("i" * 2000)) == 2000


@pytest.mark.parametrize("bad", ["", "   ", None, "i" * 2001, "a\x00b", 42])
def test_intent_empty_too_long_nul_or_not_text_is_rejected(bad):
    with pytest.raises(ValidationError) as err:
        validate_intent(bad)
    assert err.value.field == "intent"


@pytest.mark.parametrize("outcome", ["met", "missed"])
def test_review_accepts_met_and_missed_with_a_trimmed_note(outcome):
    result, note = validate_review(outcome, "  went fine \n")
    assert result is Outcome(outcome)
    assert note == "went fine"


def test_review_note_is_optional():
    assert validate_review("met", None) == (Outcome.MET, "")
    assert validate_review("missed", "") == (Outcome.MISSED, "")


@pytest.mark.parametrize("outcome", ["", "MET", "done", None, 1, "met "])
def test_review_rejects_an_outcome_other_than_met_or_missed(outcome):
    with pytest.raises(ValidationError) as err:
        validate_review(outcome, "")
    assert err.value.field == "outcome"


@pytest.mark.parametrize("note", ["n" * 2001, "a\x00b", 5, ["x"]])
def test_review_rejects_a_bad_note(note):
    with pytest.raises(ValidationError) as err:
        validate_review("met", note)
    assert err.value.field == "note"


def test_review_note_of_2000_characters_is_accepted():
    assert len(validate_review("met", "n" * 2000)[1]) == 2000


def test_window_requires_a_bounded_app_and_keeps_the_title_whole():
    assert validate_window(" firefox ", " Inbox ") == ("firefox", "Inbox")
    assert validate_window("code", None) == ("code", "")
    # Kept whole: the exclusion pattern must see all of it (the controller bounds it after).
    app, title = validate_window("code", "t" * 900)
    assert len(title) == 900
    for bad_app in ("", "  ", None, 7):
        with pytest.raises(ValidationError):
            validate_window(bad_app, "x")
    with pytest.raises(ValidationError):
        validate_window("code", "a\x00b")


# -- commitments --------------------------------------------------------------------------------


def make_commitment(timebox: int = 600) -> Commitment:
    return Commitment("c1", "a", "b", timebox, T0, T0 + timedelta(seconds=timebox))


def test_stopping_after_the_deadline_ends_at_the_deadline():
    c = make_commitment()
    assert c.stopped(at(5000)).ended_at == c.deadline
    assert c.stopped(at(100)).ended_at == at(100)


def test_seconds_left_rounds_up_and_never_goes_negative():
    c = make_commitment(600)
    assert c.seconds_left(T0) == 600
    assert c.seconds_left(at(0.2)) == 600
    assert c.seconds_left(at(599.5)) == 1
    assert c.seconds_left(at(700)) == 0


# -- time shares --------------------------------------------------------------------------------


def test_each_sample_counts_until_the_next_and_the_last_until_the_end():
    samples = [
        WindowSample("code", "main.py", at(0)),
        WindowSample("firefox", "docs", at(30)),
        WindowSample("code", "main.py", at(40)),
    ]
    shares = time_shares(samples, until=at(60))
    assert [(s.app, s.title, s.seconds) for s in shares] == [
        ("code", "main.py", 50.0),
        ("firefox", "docs", 10.0),
    ]
    assert shares[0].fraction == pytest.approx(50 / 60)
    assert sum(s.fraction for s in shares) == pytest.approx(1.0)


def test_shares_sort_samples_given_out_of_order():
    samples = [WindowSample("b", "", at(20)), WindowSample("a", "", at(0))]
    shares = time_shares(samples, until=at(30))
    assert {(s.app, s.seconds) for s in shares} == {("a", 20.0), ("b", 10.0)}


def test_a_gap_longer_than_a_minute_counts_only_a_minute():
    samples = [WindowSample("code", "x", at(0)), WindowSample("mail", "y", at(600))]
    shares = {s.app: s.seconds for s in time_shares(samples, until=at(630))}
    assert shares == {"code": MAX_SAMPLE_SPAN.total_seconds(), "mail": 30.0}


def test_the_last_sample_is_capped_too_when_the_watcher_went_quiet():
    shares = time_shares([WindowSample("code", "x", at(0))], until=at(3600))
    assert shares[0].seconds == 60.0
    assert shares[0].fraction == 1.0


def test_no_samples_means_no_shares():
    assert time_shares([], until=at(60)) == []
    assert app_shares([]) == []


def test_a_sample_after_the_end_counts_nothing_and_does_not_divide_by_zero():
    shares = time_shares([WindowSample("code", "x", at(100))], until=at(50))
    assert shares == [Share("code", "x", 0.0, 0.0)]


def test_app_shares_sum_titles_per_app():
    shares = [
        Share("code", "a.py", 30.0, 0.5),
        Share("firefox", "docs", 20.0, 1 / 3),
        Share("code", "b.py", 10.0, 1 / 6),
    ]
    per_app = app_shares(shares)
    assert [(s.app, s.title, s.seconds) for s in per_app] == [
        ("code", "", 40.0),
        ("firefox", "", 20.0),
    ]
    assert per_app[0].fraction == pytest.approx(2 / 3)


# -- health -------------------------------------------------------------------------------------


def test_health_is_healthy_up_to_30_seconds_then_stale():
    last = at(0)
    assert evidence_health(last, at(30), sampler_running=False, since=T0) is Health.HEALTHY
    assert evidence_health(last, at(31), sampler_running=True, since=T0) is Health.STALE


def test_health_is_unavailable_with_no_sample_and_no_sampler():
    assert evidence_health(None, at(1), sampler_running=False, since=T0) is Health.UNAVAILABLE
    assert evidence_health(None, at(999), sampler_running=False, since=None) is Health.UNAVAILABLE


def test_a_running_sampler_gets_30_seconds_of_grace_before_its_first_sample():
    assert evidence_health(None, at(30), sampler_running=True, since=T0) is Health.HEALTHY
    assert evidence_health(None, at(31), sampler_running=True, since=T0) is Health.STALE
    assert evidence_health(None, at(0), sampler_running=True, since=None) is Health.STALE


def test_an_ingested_sample_counts_even_without_a_sampler():
    assert evidence_health(at(10), at(20), sampler_running=False, since=T0) is Health.HEALTHY


# -- redaction ----------------------------------------------------------------------------------


def test_a_matching_title_is_replaced_never_kept_in_clear():
    pattern = re.compile(r"bank|private", re.IGNORECASE)
    assert redact("My Bank — statement", pattern) == EXCLUDED_TITLE
    assert redact("notes.txt", pattern) == "notes.txt"


def test_no_pattern_keeps_titles():
    assert redact("My Bank", None) == "My Bank"
    assert redact_window("My Bank", "My Bank", None) == ("My Bank", "My Bank")


def test_a_window_named_after_its_private_title_loses_the_app_too():
    pattern = re.compile(r"bank", re.IGNORECASE)
    assert redact_window("My Bank", "My Bank", pattern) == (EXCLUDED_TITLE, EXCLUDED_TITLE)
    assert redact_window("firefox", "My Bank", pattern) == ("firefox", EXCLUDED_TITLE)
    assert redact_window("firefox", "notes", pattern) == ("firefox", "notes")


def test_a_matching_app_is_hidden_on_its_own_with_its_windows_title():
    # Issue 24: an app matching the pattern was kept (and sent) in clear when its window's
    # title did not match.
    pattern = re.compile(r"keepass|bank", re.IGNORECASE)
    assert redact_window("KeePassXC", "Database.kdbx", pattern) == (EXCLUDED_TITLE, EXCLUDED_TITLE)
    assert redact_window("bankr", "notes", pattern) == (EXCLUDED_TITLE, EXCLUDED_TITLE)


def test_time_left_is_never_more_than_the_timebox_nor_negative():
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    c = Commitment("c", "Write", "Done", 120, start, start + timedelta(seconds=120))
    assert c.seconds_left(start - timedelta(hours=1)) == 120  # a clock an hour behind
    assert c.seconds_left(start + timedelta(hours=1)) == 0


def test_a_commitment_never_stops_before_it_started():
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    c = Commitment("c", "Write", "Done", 120, start, start + timedelta(seconds=120))
    assert c.stopped(start - timedelta(hours=1)).ended_at == start
    assert c.stopped(start + timedelta(hours=1)).ended_at == c.deadline
