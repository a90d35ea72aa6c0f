"""The calendar in the session: during an event the guard neither judges nor nudges (status
"event"), the snapshot carries now and next, the coach is told the free minutes alone."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.ai.coach import build_prompt
from antidrift.calendar import Calendar, parse
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.web.projection import state_json
from tests.fakes import START, FakeCoach, RecordingNotifier, wait_until
from tests.support.ics import event, write

NOW = START  # 09:00 UTC
SETTINGS = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
STANDUP_AT = NOW + timedelta(minutes=40)


@pytest.fixture
def agenda(tmp_path, clock):
    path = write(
        tmp_path / "work.ics",
        event(
            "s@x",
            "Team standup",
            STANDUP_AT,
            None,
            "ATTENDEE;PARTSTAT=ACCEPTED:mailto:alice@example.org",
            minutes=15,
        ),
    )
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(path)))
    kept.refresh()
    return kept


@pytest.fixture
def active(make_controller, judge, agenda):
    notifier = RecordingNotifier()
    controller = make_controller(judge=judge, drift=SETTINGS, notifier=notifier, calendar=agenda)
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "The intro is in the doc", 60)
    controller.notifier = notifier
    return controller


def tick(controller, clock, seconds: int) -> None:
    for _ in range(seconds):
        clock.advance(1)
        controller.drift_tick()


def test_during_an_event_nothing_is_judged_or_nudged_and_after_it_the_guard_goes_on(
    active, judge, clock
):
    clock.set(STANDUP_AT - timedelta(seconds=5))
    active.record_window("code", "intro.md")
    judge.wait_calls(1)
    tick(active, clock, 10)  # the standup began
    assert active.snapshot().drift.status is DriftStatus.EVENT
    active.record_window("zoom", "Team standup — Zoom")
    tick(active, clock, 120)  # past the grace: still no nudge, no judge call
    assert len(judge.calls) == 1 and active.notifier.shown == []
    assert active.snapshot().drift.status is DriftStatus.EVENT
    clock.set(STANDUP_AT + timedelta(minutes=15))
    active.drift_tick()
    assert active.snapshot().drift.status is not DriftStatus.EVENT
    active.record_window("firefox", "Cat videos")
    judge.wait_calls(2)
    assert judge.calls[1].app == "firefox"


def test_a_drift_open_when_the_event_starts_ends_and_never_nudges(active, judge, clock):
    clock.set(STANDUP_AT - timedelta(seconds=30))
    active.record_window("firefox", "Cat videos")
    judge.wait_calls(1)
    wait_until(lambda: active.snapshot().drift.status is DriftStatus.DRIFTING)
    tick(active, clock, 200)  # the grace would have run out 30 s into the standup
    assert active.notifier.shown == []
    assert active.snapshot().drift.banner is None


def test_the_snapshot_and_state_carry_the_next_event_and_the_one_under_way(active, clock):
    body = state_json(active.snapshot())["calendar"]
    assert body == {
        "now": None,
        "next": {
            "title": "Team standup",
            "starts_at": STANDUP_AT.isoformat(),
            "in_minutes": 40,
        },
    }
    clock.set(STANDUP_AT + timedelta(minutes=1))
    body = state_json(active.snapshot())["calendar"]
    assert body["now"] == {
        "title": "Team standup",
        "starts_at": STANDUP_AT.isoformat(),
        "ends_at": (STANDUP_AT + timedelta(minutes=15)).isoformat(),
    }
    assert body["next"] is None


def test_the_coach_is_told_the_free_minutes_and_nothing_else_of_the_calendar(
    make_controller, agenda, clock
):
    coach = FakeCoach()
    controller = make_controller(coach, calendar=agenda)
    controller.enter_planning()
    clock.advance(10 * 60)
    controller.coaching.request("work on the report")
    [call] = coach.wait_calls(1)
    assert call.free_minutes == 30
    prompt = build_prompt("work on the report", (), call.free_minutes)
    assert "30 minutes free before their next event" in prompt
    assert "standup" not in prompt.lower() and "alice" not in prompt


def test_without_a_calendar_the_coach_hears_nothing_of_one(make_controller):
    coach = FakeCoach()
    controller = make_controller(coach)
    controller.enter_planning()
    controller.coaching.request("work on the report")
    [call] = coach.wait_calls(1)
    assert call.free_minutes is None
    assert "calendar" not in build_prompt("work on the report", (), None)
