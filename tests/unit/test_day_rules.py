"""The day's queue, its rules (core/day.py): what an item needs, where a move puts it, the
minutes planned and free (rounded down, events overlapping counted once, 0 after the day
ends), the sentence on the fit; and the draft Plan it opens planning with."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from antidrift.core import day as rules
from antidrift.core.day import DayItem
from antidrift.core.domain import IllegalTransitionError, ValidationError
from antidrift.session.drafts import Draft

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC).astimezone()  # local: the rules read local time


def item(minutes: int | None = None, *, day: date | None = None, carried=False) -> DayItem:
    return DayItem("i", day or NOON.date(), "Do it", "", minutes, 0, NOON, carried=carried)


def test_an_item_needs_a_next_action_and_nothing_else():
    assert rules.validate_item("  Write  ") == rules.ItemFields("Write", "", None)
    assert rules.validate_item("Write", "", "") == rules.ItemFields("Write", "", None)
    assert rules.validate_item("Write", " Sent ", "30") == rules.ItemFields("Write", "Sent", 30)
    assert rules.validate_item("Write", None, 45).timebox_minutes == 45


@pytest.mark.parametrize(
    ("fields", "at_fault"),
    [
        ((None,), ("next_action",)),
        (("",), ("next_action",)),
        (("x" * 501,), ("next_action",)),
        (("ok", "done\x1b"), ("success_condition",)),
        (("ok", "", "0"), ("timebox_minutes",)),
        (("ok", "", 481), ("timebox_minutes",)),
        (("ok", "", True), ("timebox_minutes",)),
        (("", 5, "x"), ("next_action", "success_condition", "timebox_minutes")),
    ],
)
def test_a_bad_item_names_every_field_at_fault(fields, at_fault):
    with pytest.raises(ValidationError) as refused:
        rules.validate_item(*fields)
    assert refused.value.fields == at_fault


def test_fifty_items_at_most():
    rules.check_room(rules.MAX_ITEMS - 1)
    with pytest.raises(IllegalTransitionError, match="at most 50"):
        rules.check_room(rules.MAX_ITEMS)
    rules.check_room(rules.MAX_ITEMS - 3, 3)  # a proposal's all fits exactly
    with pytest.raises(IllegalTransitionError, match="Adding 3 would make 51 items"):
        rules.check_room(rules.MAX_ITEMS - 2, 3)


def test_a_day_past_fifty_with_the_other_machines_items_says_how_many_and_why():
    """Two machines adding at once can pass 50 together: nothing is added here until it is
    under 50 again, and the sentence (the page's too) says why, and how many to remove."""
    said = "at most 50 items, and has 120 with those from your other machines: delete or clear 71"
    for adding in (1, 3):
        with pytest.raises(IllegalTransitionError, match=said):
            rules.check_room(120, adding)
    assert rules.full_text(rules.MAX_ITEMS) == (
        "The day holds at most 50 items: delete or clear some first."
    )


@pytest.mark.parametrize(
    ("to", "at", "where"),
    [("up", 2, 1), ("up", 0, 0), ("down", 1, 2), ("down", 3, 3), (0, 3, 0), ("2", 0, 2), (9, 0, 3)],
)
def test_a_move_goes_up_down_or_to_an_index(to, at, where):
    assert rules.parse_position(to, 4, at) == where


@pytest.mark.parametrize("to", [None, -1, "-1", "x", "", True, 1.5, "9999999"])
def test_a_move_elsewhere_is_refused(to):
    with pytest.raises(ValidationError, match="to=<index>"):
        rules.parse_position(to, 4, 0)


def test_moved_puts_the_item_at_its_place():
    assert rules.moved(["a", "b", "c"], "c", 0) == ["c", "a", "b"]
    assert rules.moved(["a", "b", "c"], "a", 2) == ["b", "c", "a"]


def test_an_item_without_minutes_counts_25():
    assert rules.planned_minutes([item(30), item(), item(5)]) == 60


def test_carried_means_from_an_earlier_day():
    assert not item().carried_on(NOON.date())
    assert item(day=NOON.date() - timedelta(days=1)).carried_on(NOON.date())
    assert item(carried=True).carried_on(NOON.date())


def test_free_minutes_run_until_the_day_ends_less_the_events_counted_once():
    end = rules.day_end(NOON)  # 18:00 local
    assert rules.free_minutes(NOON, []) == 6 * 60
    spans = [
        (NOON + timedelta(hours=1), NOON + timedelta(hours=2)),  # 60 min
        (NOON + timedelta(hours=1, minutes=30), NOON + timedelta(hours=2, minutes=30)),  # +30
        (NOON - timedelta(hours=1), NOON + timedelta(minutes=10)),  # under way: 10 left
        (end - timedelta(minutes=15), end + timedelta(hours=1)),  # to the end: 15
        (end + timedelta(hours=2), end + timedelta(hours=3)),  # after the day: none
    ]
    assert rules.free_minutes(NOON, spans) == 360 - 60 - 30 - 10 - 15


def test_free_spans_are_the_gaps_between_events_until_the_day_ends():
    end = rules.day_end(NOON)  # 18:00 local
    assert rules.free_spans(NOON, []) == [(NOON, 360)]
    spans = [
        (NOON - timedelta(hours=1), NOON + timedelta(minutes=10)),  # under way
        (NOON + timedelta(hours=1), NOON + timedelta(hours=2)),
        (NOON + timedelta(hours=1, minutes=30), NOON + timedelta(hours=3)),  # overlaps it
        (NOON + timedelta(hours=3, seconds=30), NOON + timedelta(hours=4)),  # a gap of 30 s
        (end - timedelta(minutes=15), end + timedelta(hours=1)),
    ]
    assert rules.free_spans(NOON, spans) == [
        (NOON + timedelta(minutes=10), 50),
        (NOON + timedelta(hours=4), 105),
    ]
    assert rules.free_spans(end, []) == []


def test_free_minutes_round_down_and_are_0_after_the_day_ends():
    at = NOON + timedelta(seconds=30)  # 359.5 minutes left: 359
    assert rules.free_minutes(at, []) == 359
    assert rules.free_minutes(rules.day_end(NOON), []) == 0
    assert rules.free_minutes(rules.day_end(NOON) + timedelta(hours=3), []) == 0
    assert rules.free_minutes(NOON, [], time(20, 30)) == 8 * 60 + 30


def test_the_fit_is_said_plainly():
    assert rules.fit_text(335, 300) == "35 min more than your free time."
    assert rules.fit_text(300, 300) == "The plan fills your free time exactly."
    assert rules.fit_text(100, 300) == "Fits: 200 min of your free time left over."


def test_plan_it_opens_a_draft_for_the_item_that_outlives_a_restart():
    full = DayItem("item-1", NOON.date(), "Write", "Sent", 30, 0, NOON)
    draft = Draft.of_item(full)
    assert (draft.next_action, draft.success_condition, draft.timebox_minutes) == (
        "Write",
        "Sent",
        "30",
    )
    assert draft.edited == frozenset()  # the typed-words rules of Again: the coach may fill
    assert Draft.from_json(draft.to_json()) == draft
    assert Draft.of_item(item()).timebox_minutes == "25"
    assert Draft.from_json(Draft().to_json()).day_item is None
    assert Draft.from_json('{"day_item": 5}').day_item is None


def test_tallies_count_planned_met_missed_and_what_is_left():
    Tally, tallies = rules.Tally, rules.tallies

    monday, tuesday = date(2026, 3, 2), date(2026, 3, 3)
    records = [
        (monday, True, "met"),
        (monday, True, "missed"),
        (monday, True, None),  # started, still running
        (monday, False, None),  # not started on Monday: carried, so Tuesday's
        (tuesday, False, None),
        (tuesday, True, "met"),
    ]
    assert tallies(records, tuesday) == {
        monday: Tally(planned=3, met=1, missed=1, carried=0),
        tuesday: Tally(planned=3, met=1, missed=0, carried=2),
    }
    assert tallies(records, tuesday)[tuesday].done == 1
    assert tallies([], tuesday) == {}
