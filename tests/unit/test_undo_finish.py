"""Undo finish (30 seconds after a manual Finish, once) and the closure the locked view shows
after an outcome is saved, on the fake clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, IllegalTransitionError, Outcome, RuntimeState
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.web.words import Closure
from tests.fakes import START, RecordingNotifier, wait_until


def test_undo_within_30_seconds_returns_to_the_same_commitment_and_deadline(running, clock, store):
    controller = running()
    controller.record_window("code", "intro.md")
    before = controller.snapshot().commitment
    clock.advance(5 * 60)
    controller.finish()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.REVIEW
    assert snap.undo_until == START + timedelta(minutes=5, seconds=30)
    clock.advance(30)
    controller.undo_finish()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.ACTIVE and snap.commitment == before
    assert snap.commitment.deadline == START + timedelta(minutes=20)
    assert snap.evidence.last.title == "intro.md"  # the same evidence
    assert (store.state, store.current) == (RuntimeState.ACTIVE, before)  # persisted
    with pytest.raises(IllegalTransitionError):
        controller.undo_finish()  # twice: it is running again


def test_while_the_outcome_goes_to_a_task_tool_finish_stands_and_after_too(running):
    controller = running()
    controller.finish()
    cid = controller.snapshot().commitment.id
    with controller.finish_standing(cid):
        assert controller.snapshot().undo_until is None  # no Undo while it is written
        with pytest.raises(IllegalTransitionError):
            controller.undo_finish()
    assert controller.snapshot().undo_until is None  # written: Finish stands for good
    assert controller.snapshot().state is RuntimeState.REVIEW


def test_when_the_task_tool_refuses_the_undo_comes_back(running, clock):
    controller = running()
    controller.finish()
    until = controller.snapshot().undo_until
    cid = controller.snapshot().commitment.id
    with pytest.raises(OSError), controller.finish_standing(cid):
        raise OSError("the file went away")  # nothing was written
    assert controller.snapshot().undo_until == until
    clock.advance(10)
    controller.undo_finish()
    assert controller.snapshot().state is RuntimeState.ACTIVE


def test_a_commitment_undo_set_running_again_is_not_recorded_as_finished(running):
    controller = running()
    controller.finish()
    cid = controller.snapshot().commitment.id
    controller.undo_finish()  # from another tab, just before the write-back
    with (
        pytest.raises(IllegalTransitionError, match="running again"),
        controller.finish_standing(cid),
    ):
        raise AssertionError("the task tool must not be asked")
    assert controller.snapshot().state is RuntimeState.ACTIVE


def test_undo_is_refused_once_30_seconds_have_passed(running, clock, store):
    controller = running()
    controller.finish()
    clock.advance(31)
    assert controller.snapshot().undo_until is None
    saves = len(store.saves)
    with pytest.raises(IllegalTransitionError, match="30 seconds"):
        controller.undo_finish()
    assert controller.snapshot().state is RuntimeState.REVIEW and len(store.saves) == saves


def test_undo_is_refused_after_an_expiry_and_after_the_outcome_is_saved(running, clock):
    controller = running()
    clock.advance(20 * 60)
    assert controller.expire_if_due()
    assert controller.snapshot().undo_until is None
    with pytest.raises(IllegalTransitionError):
        controller.undo_finish()
    controller.extend(5)  # reopened, then finished by hand and saved at once
    controller.finish()
    controller.end("met")
    with pytest.raises(IllegalTransitionError):
        controller.undo_finish()
    assert controller.snapshot().state is RuntimeState.LOCKED


def test_undo_of_a_finish_pressed_while_paused_is_paused_again(running, clock):
    controller = running()
    controller.pause()
    clock.advance(60)
    controller.finish()
    assert controller.snapshot().commitment.paused_secs == 60
    controller.undo_finish()
    snap = controller.snapshot()
    assert snap.commitment.paused and snap.drift.status is DriftStatus.PAUSED
    assert snap.paused_secs == 60  # the pause goes on, counted from when it began


def test_undo_brings_the_guard_back_with_its_verdicts(running, judge, clock):
    settings = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
    controller = running(judge=judge, drift=settings)
    controller.record_window("code", "intro.md")
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.ON_TASK)
    controller.finish()
    controller.undo_finish()
    assert controller.snapshot().drift.status is DriftStatus.ON_TASK
    assert len(judge.calls) == 1  # the verdict was kept, not asked again


def nudges(notifier: RecordingNotifier) -> list[str]:
    return [title for title, _ in notifier.shown if title.startswith("Drifting?")]


def test_the_time_in_review_is_not_drift_the_grace_runs_from_the_undo(running, judge, clock):
    notifier = RecordingNotifier()
    settings = DriftSettings(timedelta(seconds=10), timedelta(seconds=300), 30)
    controller = running(judge=judge, drift=settings, notifier=notifier)
    controller.record_window("code", "intro.md")
    judge.wait_calls(1)
    clock.advance(1)
    controller.record_window("firefox", "Cat videos")
    judge.wait_calls(2)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    clock.advance(3)
    controller.finish()
    clock.advance(25)  # reading the review: neither work nor drift
    controller.undo_finish()
    controller.drift_tick()
    assert notifier.shown == [] and controller.snapshot().drift.banner is None
    clock.advance(9)
    controller.drift_tick()
    assert notifier.shown == []
    clock.advance(1)
    controller.drift_tick()
    assert [title for title, _ in notifier.shown] == ["Drifting? · AntiDrift"]
    assert controller.snapshot().drift.banner.started_at == clock.now() - timedelta(seconds=10)


def test_more_time_after_time_s_up_counts_the_window_from_then_too(running, judge, clock):
    notifier = RecordingNotifier()
    settings = DriftSettings(timedelta(seconds=10), timedelta(seconds=300), 30)
    controller = running(judge=judge, drift=settings, notifier=notifier)
    clock.advance(20 * 60 - 3)
    controller.record_window("firefox", "Cat videos")
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    clock.advance(3)
    assert controller.expire_if_due()
    clock.advance(25)  # time's up, read: neither work nor drift
    controller.extend(5)
    controller.drift_tick()
    assert nudges(notifier) == [] and controller.snapshot().drift.banner is None
    clock.advance(10)
    controller.drift_tick()
    assert nudges(notifier) == ["Drifting? · AntiDrift"]


# -- the closure --------------------------------------------------------------------------------


def test_the_locked_view_keeps_the_closure_until_the_next_planning(running, make_controller):
    controller = running()
    controller.finish()
    ended = controller.end("met")
    assert controller.snapshot().closure == ended.id
    controller.enter_planning()
    assert controller.snapshot().closure is None
    controller.cancel_planning()
    assert controller.snapshot().closure is None


def ended(cid: str, minutes_ago: int, outcome: Outcome) -> Commitment:
    at = START - timedelta(minutes=minutes_ago)
    return Commitment(cid, f"Task {cid}", "Done", 600, at, at, at, outcome)


def test_the_closure_says_the_met_streak_from_the_history():
    recent = [
        ended("c4", 1, Outcome.MET),
        ended("c3", 20, Outcome.MET),
        ended("c2", 40, Outcome.MET),
        ended("c1", 60, Outcome.MISSED),
        ended("c0", 80, Outcome.MET),
    ]
    assert Closure.of(recent, "c4") == Closure("c4", "Task c4", True, 3)
    assert Closure.of(recent, "c1") == Closure("c1", "Task c1", False, 0)
    assert Closure.of(recent, "c0") == Closure("c0", "Task c0", True, 1)
    assert Closure.of(recent, "gone") is None  # removed from the history meanwhile
    assert Closure.of(recent, None) is None
