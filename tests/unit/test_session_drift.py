"""The drift guard in the controller: judge calls off the lock, nudges, answers, figures."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest

from antidrift.ai import CLINotLoggedIn
from antidrift.core.domain import (
    EXCLUDED_TITLE,
    IllegalTransitionError,
    RuntimeState,
    ValidationError,
)
from antidrift.drift.policy import DriftSettings, DriftStatus
from tests.fakes import wait_until

SETTINGS = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
ACTION = "Write the intro paragraph"


@pytest.fixture
def guarded(make_controller, judge, notifier):
    def make(**kwargs):
        kwargs.setdefault("drift", SETTINGS)
        controller = make_controller(judge=judge, notifier=notifier, **kwargs)
        controller.enter_planning()
        controller.start_manual_commitment(ACTION, "The intro is in the doc", 60)
        return controller

    return make


def _drift(controller):
    return controller.snapshot().drift


def _settled(controller, judge, count):
    judge.wait_calls(count)
    wait_until(lambda: _drift(controller).reason not in ("judging this window",))


def test_drifting_nudges_once_naming_the_next_action(guarded, judge, notifier, clock):
    controller = guarded()
    controller.record_window("code", "intro.md")
    _settled(controller, judge, 1)
    assert _drift(controller).status is DriftStatus.ON_TASK
    clock.advance(10)
    controller.record_window("firefox", "Cat videos — YouTube")
    _settled(controller, judge, 2)
    assert _drift(controller).status is DriftStatus.DRIFTING
    for _ in range(59):
        clock.advance(1)
        controller.drift_tick()
    assert notifier.shown == [] and _drift(controller).banner is None
    clock.advance(1)
    controller.drift_tick()
    controller.drift_tick()
    [(title, body)] = notifier.shown
    assert "Drifting" in title and ACTION in body
    assert "Cat videos" not in body, "the notification names no window title"
    assert _drift(controller).banner is not None


def test_on_task_answer_stops_nudges_for_that_window(guarded, judge, notifier, clock):
    controller = guarded(drift=DriftSettings(timedelta(0), timedelta(0), 30))
    controller.record_window("firefox", "Tutorial — YouTube")
    _settled(controller, judge, 1)
    controller.drift_tick()
    assert len(notifier.shown) == 1
    controller.acknowledge_drift("on_task")
    assert _drift(controller).status is DriftStatus.ON_TASK and _drift(controller).banner is None
    for _ in range(5):
        clock.advance(120)
        controller.record_window("firefox", "Tutorial — YouTube")
        controller.drift_tick()
    assert len(notifier.shown) == 1 and len(judge.calls) == 1


def test_a_judge_call_never_blocks_a_transition_and_leaving_active_cancels_it(guarded, judge):
    judge.gated = True
    controller = guarded()
    done = threading.Event()

    def sample_then_finish():
        controller.record_window("firefox", "x")
        controller.finish()
        done.set()

    threading.Thread(target=sample_then_finish, daemon=True).start()
    [call] = judge.wait_calls(1)
    assert done.wait(2), "record_window and finish returned while the judge still ran"
    assert controller.snapshot().state is RuntimeState.REVIEW
    assert call.finished.wait(2) and call.outcome == "cancelled"
    assert call.scope.cancelled


def test_a_failing_judge_is_unknown_with_its_reason_and_never_nudges(
    guarded, judge, notifier, clock
):
    judge.fail = CLINotLoggedIn("claude")
    controller = guarded(drift=DriftSettings(timedelta(0), timedelta(0), 30))
    controller.record_window("firefox", "feed")
    wait_until(lambda: "not logged in" in (_drift(controller).reason or ""))
    for _ in range(5):
        clock.advance(60)
        controller.drift_tick()
    assert _drift(controller).status is DriftStatus.UNKNOWN
    assert notifier.shown == []


def test_excluded_titles_reach_the_judge_as_no_title(make_controller, judge, notifier):
    controller = make_controller(
        judge=judge, notifier=notifier, drift=SETTINGS, exclude_titles=re.compile("bank", re.I)
    )
    controller.enter_planning()
    controller.start_manual_commitment(ACTION, "done", 30)
    controller.record_window("firefox", "My Bank — balance")
    [call] = judge.wait_calls(1)
    assert call.title is None
    assert controller.snapshot().evidence.last.title == EXCLUDED_TITLE


def test_an_excluded_app_never_reaches_the_judge_or_the_store(make_controller, judge, store):
    controller = make_controller(
        judge=judge, drift=SETTINGS, exclude_titles=re.compile("keepass", re.I)
    )
    controller.enter_planning()
    cid = controller.start_manual_commitment(ACTION, "done", 30).id
    controller.record_window("KeePassXC", "Database.kdbx")  # the title alone does not match
    [call] = judge.wait_calls(1)
    assert (call.app, call.title) == (EXCLUDED_TITLE, None)
    last = controller.snapshot().evidence.last
    assert (last.app, last.title) == (EXCLUDED_TITLE, EXCLUDED_TITLE)
    assert "KeePass" not in repr(store.samples(cid)) and "kdbx" not in repr(store.samples(cid))


def test_acknowledging_needs_a_banner_and_a_known_answer(guarded, judge, store):
    controller = guarded(drift=DriftSettings(timedelta(0), timedelta(0), 30))
    with pytest.raises(IllegalTransitionError):
        controller.acknowledge_drift("back")
    controller.record_window("firefox", "feed")
    _settled(controller, judge, 1)
    controller.drift_tick()
    before = dict(store.drift_episodes)
    with pytest.raises(ValidationError):
        controller.acknowledge_drift("later")
    assert store.drift_episodes == before
    controller.acknowledge_drift("back")
    [episode] = store.drift_episodes.values()
    assert episode.answer == "back" and episode.ended_at is not None


def test_drift_is_off_without_a_judge_or_settings(make_controller, judge):
    for controller in (make_controller(judge=judge), make_controller(drift=SETTINGS)):
        controller.enter_planning()
        controller.start_manual_commitment(ACTION, "done", 30)
        controller.record_window("firefox", "feed")
        assert _drift(controller).status is DriftStatus.OFF
        controller.finish()
        controller.end("met")
    assert judge.calls == []


def test_review_writes_the_figures_history_shows(guarded, judge, store, clock):
    controller = guarded(drift=DriftSettings(timedelta(0), timedelta(0), 30))
    controller.record_window("code", "intro.md")
    _settled(controller, judge, 1)
    clock.advance(30)
    controller.record_window("firefox", "feed")
    _settled(controller, judge, 2)
    controller.drift_tick()
    clock.advance(10)
    controller.record_window("code", "intro.md")  # back: the episode ends by itself
    clock.advance(20)
    controller.finish()
    commitment_id = controller.snapshot().commitment.id
    count, share = store.drift_summaries([commitment_id])[commitment_id]
    assert count == 1
    assert share == pytest.approx(50 / 60)
    [episode] = store.episodes(commitment_id)
    assert (episode.app, episode.answer) == ("firefox", None)
    assert episode.ended_at - episode.started_at == timedelta(seconds=10)


def test_the_share_counts_a_ticking_titles_time_under_its_one_verdict(guarded, judge, store, clock):
    controller = guarded()
    for second in range(59, 49, -1):  # one window whose title shows a clock: judged once
        controller.record_window("code", f"intro.md — 12:{second:02d} left")
        _settled(controller, judge, 1)
        clock.advance(3)
    controller.record_window("firefox", "feed")
    _settled(controller, judge, 2)
    clock.advance(10)
    controller.finish()
    commitment_id = controller.snapshot().commitment.id
    _, share = store.drift_summaries([commitment_id])[commitment_id]
    assert share == pytest.approx(30 / 40)


def test_a_restart_keeps_the_verdicts_of_the_commitment(guarded, make_controller, judge, store):
    controller = guarded()
    controller.record_window("code", "intro.md")
    _settled(controller, judge, 1)
    controller.shutdown()
    restarted = make_controller(judge=judge, drift=SETTINGS, store_=store)
    restarted.start()
    restarted.record_window("code", "intro.md")
    assert _drift(restarted).status is DriftStatus.ON_TASK
    assert len(judge.calls) == 1


def test_the_guard_can_be_off_for_one_commitment_and_stays_so_after_a_restart(
    make_controller, judge, store
):
    controller = make_controller(judge=judge, drift=SETTINGS)
    controller.enter_planning()
    with pytest.raises(ValidationError):
        controller.start_manual_commitment(ACTION, "done", 30, "sometimes")
    assert controller.snapshot().state is RuntimeState.PLANNING
    controller.start_manual_commitment(ACTION, "done", 30, "off")
    controller.record_window("firefox", "feed")
    assert _drift(controller).status is DriftStatus.OFF
    assert _drift(controller).reason == "off for this commitment"
    controller.shutdown()
    restarted = make_controller(judge=judge, drift=SETTINGS, store_=store)
    restarted.start()
    restarted.record_window("firefox", "feed")
    assert _drift(restarted).status is DriftStatus.OFF
    restarted.finish()
    restarted.end("met")
    restarted.enter_planning()
    restarted.start_manual_commitment(ACTION, "done", 30)  # the next one is watched again
    restarted.record_window("firefox", "feed")
    judge.wait_calls(1)
    assert [c.app for c in judge.calls] == ["firefox"]
