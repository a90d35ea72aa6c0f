"""Wall-clock jumps (NTP, a changed date, a VM resumed) while a timebox runs: the fake clock's
wall and monotonic faces move independently. Nothing shows more time left than the timebox,
no duration is negative, nothing ends early; a restart derives the time left once."""

from __future__ import annotations

from datetime import timedelta

from antidrift.core.domain import RuntimeState
from antidrift.session.controller import Controller
from tests.fakes import FakeClock
from tests.support.session import build_controller
from tests.support.walk import walk

HOUR = 3600


def _left(controller: Controller) -> int:
    snap = controller.snapshot()
    return snap.commitment.seconds_left(snap.now)


def test_back_one_hour_shows_the_true_time_left_and_no_negative_duration(make_controller, clock):
    controller = make_controller()
    c = walk(controller, "active", timebox_minutes=2)
    clock.advance(10)
    clock.jump_wall(-HOUR)
    assert _left(controller) == 110  # not 1:01:50 left of 2 min
    controller.record_window("code", "main.py")
    assert controller.snapshot().evidence.last.at >= c.started_at
    controller.finish()
    ended = controller.snapshot().commitment
    assert ended.ended_at - ended.started_at == timedelta(seconds=10)


def test_forward_one_hour_does_not_end_the_timebox_early(make_controller, clock):
    controller = make_controller()
    c = walk(controller, "active", timebox_minutes=30)
    clock.advance(1)
    clock.jump_wall(+HOUR)
    assert not controller.expire_if_due()
    assert controller.snapshot().state is RuntimeState.ACTIVE
    assert _left(controller) == 30 * 60 - 1
    clock.advance(30 * 60 - 1)
    assert controller.expire_if_due()
    assert controller.snapshot().commitment.ended_at == c.deadline


def test_a_restart_derives_the_time_left_once_from_the_stored_deadline(store, clock):
    first = build_controller(store, clock)
    c = walk(first, "active", timebox_minutes=30)
    first.shutdown()
    clock.advance(10 * 60)  # down for ten minutes
    second = build_controller(store, clock)
    try:
        assert _left(second) == 20 * 60
        clock.jump_wall(+HOUR)  # after start-up the wall clock no longer counts
        assert _left(second) == 20 * 60 and not second.expire_if_due()
        clock.advance(20 * 60)
        assert second.expire_if_due()
        assert second.snapshot().commitment.ended_at == c.deadline
    finally:
        second.shutdown()


def test_a_restart_after_the_wall_clock_went_back_caps_the_time_left(store):
    clock = FakeClock()
    first = build_controller(store, clock)
    walk(first, "active", timebox_minutes=2)
    first.shutdown()
    clock.jump_wall(-HOUR)  # the machine came back with its clock an hour behind
    second = build_controller(store, clock)
    try:
        assert _left(second) == 120  # the timebox, not 1:02:00
        clock.advance(5)
        second.finish()
        ended = second.snapshot().commitment
        assert ended.ended_at >= ended.started_at
        assert store.commitments[ended.id].ended_at >= ended.started_at
    finally:
        second.shutdown()


def test_a_wall_clock_that_went_back_across_a_restart_still_ends_the_timebox_on_time(store):
    clock = FakeClock()
    first = build_controller(store, clock)
    walk(first, "active", timebox_minutes=2)
    first.shutdown()
    clock.jump_wall(-HOUR)
    second = build_controller(store, clock)
    try:
        clock.advance(119)
        assert not second.expire_if_due()
        clock.advance(1)
        assert second.expire_if_due()  # two minutes of real time, not an hour and two
    finally:
        second.shutdown()


def test_between_commitments_the_controller_follows_a_corrected_wall_clock(make_controller, clock):
    controller = make_controller()
    clock.jump_wall(+HOUR)  # e.g. NTP fixed a wrong clock while nothing was running
    c = walk(controller, "active", timebox_minutes=5)
    assert c.started_at == clock.now()


def test_an_extension_after_the_clock_went_back_cannot_end_before_it_started(
    make_controller, clock
):
    controller = make_controller()
    c = walk(controller, "active", timebox_minutes=1)
    clock.advance(60)
    assert controller.expire_if_due()
    clock.jump_wall(-HOUR)  # while the review waits
    controller.extend(5)
    extended = controller.snapshot().commitment
    assert extended.deadline == c.deadline + timedelta(minutes=5)
    clock.advance(10)
    controller.finish()
    ended = controller.snapshot().commitment
    assert c.started_at <= ended.ended_at <= ended.deadline
