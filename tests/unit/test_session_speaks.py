"""The active phase speaks: the notification when a timebox runs out."""

from __future__ import annotations

import threading
import time

from antidrift.core.domain import RuntimeState
from antidrift.notify import Background
from tests.fakes import RecordingNotifier
from tests.support.timing import assert_within
from tests.support.walk import walk


def test_a_timebox_running_out_sends_exactly_one_notification_naming_the_next_action(
    make_controller, clock
):
    notifier = RecordingNotifier()
    controller = make_controller(notifier=notifier)
    walk(controller, "active")
    clock.advance(10 * 60 - 1)
    controller.expire_if_due()
    assert notifier.shown == []
    clock.advance(1)
    for _ in range(3):  # the ticker calls this every second
        controller.expire_if_due()
    [(title, body)] = notifier.shown
    assert "Time's up" in title
    assert "Write the intro" in body


def test_finishing_by_hand_sends_no_notification(make_controller, clock):
    notifier = RecordingNotifier()
    controller = make_controller(notifier=notifier)
    walk(controller, "active")
    controller.finish()
    clock.advance(3600)
    controller.expire_if_due()
    assert notifier.shown == []


def test_a_deadline_passed_while_the_server_was_down_is_announced_once(
    make_controller, store, clock
):
    walk(make_controller(), "active")
    clock.advance(3600)
    notifier = RecordingNotifier()
    restarted = make_controller(store_=store, notifier=notifier)
    assert notifier.shown == []  # building it says nothing
    restarted.start()
    restarted.start()  # once
    restarted.expire_if_due()  # and the first tick after it has nothing more to say
    assert restarted.snapshot().state is RuntimeState.REVIEW
    assert len(notifier.shown) == 1


def test_a_failing_notifier_does_not_undo_the_transition(make_controller, clock):
    notifier = RecordingNotifier(fail=RuntimeError("daemon gone"))
    controller = make_controller(notifier=notifier)
    walk(controller, "active")
    clock.advance(600)
    assert controller.expire_if_due() is True
    assert controller.snapshot().state is RuntimeState.REVIEW


def test_a_stuck_notifier_never_holds_the_transition_or_the_lock(make_controller, clock):
    release = threading.Event()

    class Stuck:
        name = "stuck"

        def notify(self, title: str, body: str) -> None:
            release.wait(10)

    notifier = Background(Stuck())
    try:
        controller = make_controller(notifier=notifier)
        walk(controller, "active")
        clock.advance(600)
        started = time.monotonic()
        assert controller.expire_if_due() is True
        controller.snapshot()  # the lock is free
        assert_within(time.monotonic() - started, 1, "the expiry")
    finally:
        release.set()
        notifier.shutdown(wait=True)
