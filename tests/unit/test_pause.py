"""Pause and resume: the timing (pure), and the controller's moves over the fakes (no
expiry, no samples, the guard waiting, a deadline moved by the pause)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, IllegalTransitionError, Outcome, RuntimeState
from antidrift.core.timing import five_minutes_left, paused, paused_total, resumed
from antidrift.drift.policy import DriftSettings, DriftStatus
from tests.fakes import START, RecordingNotifier, wait_until

GRACE = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)


def commitment(minutes: int = 20) -> Commitment:
    return Commitment(
        "c1", "Write", "Written", minutes * 60, START, START + timedelta(minutes=minutes)
    )


# -- the timing, pure -------------------------------------------------------------------------


def test_the_clock_stands_still_while_paused_and_the_deadline_moves_by_the_pause():
    c = paused(commitment(), START + timedelta(minutes=5))
    assert c.paused and c.seconds_left(START + timedelta(minutes=5)) == 15 * 60
    assert c.seconds_left(START + timedelta(minutes=12)) == 15 * 60  # seven minutes later
    assert paused_total(c, START + timedelta(minutes=12)) == 7 * 60  # the pause in progress
    back = resumed(c, START + timedelta(minutes=12))
    assert not back.paused and back.paused_secs == 7 * 60
    assert back.deadline == START + timedelta(minutes=27)
    assert back.seconds_left(START + timedelta(minutes=12)) == 15 * 60
    # A second pause adds to the first.
    again = resumed(paused(back, START + timedelta(minutes=20)), START + timedelta(minutes=21))
    assert (again.paused_secs, again.deadline) == (8 * 60, START + timedelta(minutes=28))


@pytest.mark.parametrize("gap", [0.4, 0.6, 7199.5, 3.49])
def test_a_clock_resumed_shows_exactly_what_it_showed_paused(gap):
    # Paused 0.1 s short of a whole second left (the clock shows 15:00 for 14:59.9), then
    # resumed after a gap that is not whole either: the clock goes on from 15:00.
    at = START + timedelta(minutes=5, seconds=0.1)
    c = paused(commitment(), at)
    shown = c.seconds_left(at)
    back = resumed(c, at + timedelta(seconds=gap))
    assert back.seconds_left(at + timedelta(seconds=gap)) == shown == 15 * 60
    assert back.paused_secs == round(gap)


def test_actual_time_leaves_out_the_pauses_even_one_that_finish_ended():
    c = paused(commitment(), START + timedelta(minutes=5))
    stopped = resumed(c, START + timedelta(minutes=9)).stopped(START + timedelta(minutes=9))
    assert not stopped.paused and stopped.paused_secs == 4 * 60
    assert stopped.ended_at == START + timedelta(minutes=9)
    assert stopped.actual_secs == 5 * 60
    ended = stopped.ended(stopped.ended_at, Outcome.MET, "")
    assert ended.actual_secs == 5 * 60


def test_extending_a_paused_commitment_moves_its_deadline_and_keeps_it_paused():
    c = paused(commitment(), START + timedelta(minutes=5))
    longer = c.extend(10, START + timedelta(minutes=30))  # past the old deadline, but paused
    assert longer.paused and longer.deadline == START + timedelta(minutes=30)
    assert longer.seconds_left(START + timedelta(minutes=30)) == 25 * 60


@pytest.mark.parametrize(
    ("minutes", "left", "said"),
    [
        (15, 300, True),
        (15, 241, True),
        (15, 301, False),
        (15, 240, False),
        (14, 300, False),  # a short timebox is not interrupted
        (60, 280, True),
    ],
)
def test_five_minutes_left_is_said_for_the_minute_from_five_minutes(minutes, left, said):
    c = commitment(minutes)
    now = c.deadline - timedelta(seconds=left)
    assert five_minutes_left(c, now) is said


def test_five_minutes_left_counts_added_time_and_is_never_said_while_paused():
    c = commitment(10).extend(5, START)  # 15 minutes in all
    assert five_minutes_left(c, c.deadline - timedelta(seconds=299))
    held = paused(c, c.deadline - timedelta(seconds=299))
    assert not five_minutes_left(held, c.deadline - timedelta(seconds=250))


# -- the controller ---------------------------------------------------------------------------


def test_pause_and_resume_refuse_where_they_do_not_apply_and_change_nothing(make_controller, store):
    controller = make_controller()
    for move in (controller.pause, controller.resume):
        with pytest.raises(IllegalTransitionError, match="no commitment"):
            move()
    controller.enter_planning()
    controller.start_manual_commitment("Write", "Done", 20)
    with pytest.raises(IllegalTransitionError, match="not paused"):
        controller.resume()
    controller.pause()
    saves = len(store.saves)
    with pytest.raises(IllegalTransitionError, match="already paused|is paused"):
        controller.pause()
    assert len(store.saves) == saves


def test_no_expiry_while_paused_and_resume_moves_the_deadline(running, clock, store):
    controller = running()
    clock.advance(5 * 60)
    controller.pause()
    assert store.current.paused_at == START + timedelta(minutes=5)  # persisted first
    clock.advance(60 * 60)  # an hour away: far past the deadline
    assert controller.expire_if_due() is False
    snap = controller.snapshot()
    assert snap.state is RuntimeState.ACTIVE and snap.paused_secs == 3600
    assert snap.commitment.seconds_left(snap.now) == 15 * 60
    controller.resume()
    c = controller.snapshot().commitment
    assert c.deadline == START + timedelta(minutes=80) and c.paused_secs == 3600
    assert store.current.deadline == c.deadline
    clock.advance(15 * 60)
    assert controller.expire_if_due() is True


def test_windows_are_not_recorded_while_paused(running, clock, store):
    controller = running()
    assert controller.record_window("code", "intro.md") is True
    controller.pause()
    assert controller.wants_evidence() is False
    assert controller.record_window("firefox", "private call notes") is False
    controller.resume()
    assert controller.wants_evidence() is True
    assert [s.title for _, s in store.sample_rows] == ["intro.md"]


def test_the_guard_neither_judges_nor_nudges_while_paused(running, judge, clock):
    notifier = RecordingNotifier()
    controller = running(judge=judge, drift=GRACE, notifier=notifier)
    controller.record_window("firefox", "feed")
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    clock.advance(30)
    controller.pause()
    assert controller.snapshot().drift.status is DriftStatus.PAUSED
    for _ in range(5):  # well past the grace: still no nudge
        clock.advance(60)
        controller.drift_tick()
    assert notifier.shown == [] and controller.snapshot().drift.banner is None
    assert len(judge.calls) == 1
    # Back: the pause was not drift. The grace runs again from the resume.
    controller.resume()
    assert controller.snapshot().drift.status is DriftStatus.DRIFTING
    clock.advance(59)
    controller.drift_tick()
    assert notifier.shown == []
    clock.advance(1)
    controller.drift_tick()
    assert [title for title, _ in notifier.shown] == ["Drifting? · AntiDrift"]
    assert len(judge.calls) == 1  # the verdict was kept: no second call for the same window


def test_a_drift_banner_open_at_the_pause_ends_there(running, judge, clock):
    controller = running(judge=judge, drift=DriftSettings(timedelta(0), timedelta(0), 30))
    controller.record_window("firefox", "feed")
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    controller.drift_tick()
    assert controller.snapshot().drift.banner is not None
    controller.pause()
    assert controller.snapshot().drift.banner is None
    with pytest.raises(IllegalTransitionError):
        controller.acknowledge_drift("back")  # nothing to answer while paused


def test_a_paused_commitment_is_still_paused_after_a_restart(running, make_controller, clock):
    controller = running()
    clock.advance(60)
    controller.pause()
    controller.shutdown()
    clock.advance(2 * 3600)  # the server was down for two hours, the deadline long gone
    again = make_controller()
    again.start()
    snap = again.snapshot()
    assert snap.state is RuntimeState.ACTIVE and snap.commitment.paused
    assert snap.paused_secs == 2 * 3600 and snap.commitment.seconds_left(snap.now) == 19 * 60
    assert snap.drift.status is DriftStatus.PAUSED
    assert again.expire_if_due() is False


def test_finish_while_paused_records_the_pause_and_the_time_taken(running, clock, store):
    controller = running()
    clock.advance(4 * 60)
    controller.pause()
    clock.advance(10 * 60)
    controller.finish()
    controller.end("met")
    [row] = store.history()
    assert (row.paused_secs, row.actual_secs, row.paused_at) == (600, 240, None)


def test_after_a_restart_while_paused_the_guard_judges_nothing_until_resume(
    running, make_controller, judge, clock, store
):
    # Paused on a window never judged (no guard then); the server comes back with one.
    controller = running()
    controller.record_window("firefox", "feed")
    controller.pause()
    controller.shutdown()
    clock.advance(120)
    notifier = RecordingNotifier()
    again = make_controller(judge=judge, drift=GRACE, notifier=notifier)
    again.start()
    for _ in range(3):  # past the grace, still paused
        clock.advance(60)
        again.drift_tick()
    assert again.snapshot().drift.status is DriftStatus.PAUSED
    # Resume: the window seen last is judged now, once. A call made while paused would have
    # run first on the judge's one worker, so the count is complete once this one settled.
    again.resume()
    judge.wait_calls(1)
    wait_until(lambda: again.snapshot().drift.status is DriftStatus.DRIFTING)
    assert len(judge.calls) == 1 and notifier.shown == []
    assert store.episodes(again.snapshot().commitment.id) == []


def test_a_judge_call_running_at_the_pause_is_stopped_and_has_no_effect(running, judge, clock):
    judge.gated = True
    notifier = RecordingNotifier()
    controller = running(judge=judge, drift=GRACE, notifier=notifier)
    controller.record_window("firefox", "feed")
    [call] = judge.wait_calls(1)
    controller.pause()
    assert call.finished.wait(2) and call.outcome == "cancelled", "the pause stops the judge"
    clock.advance(120)  # past the grace while paused
    judge.release_all()  # were it still running, its verdict would come now
    controller.drift_tick()
    assert controller.snapshot().drift.status is DriftStatus.PAUSED
    assert notifier.shown == [] and controller.snapshot().drift.banner is None
    # Back: the window is asked about afresh (the stopped call left no verdict) and the grace
    # runs from the resume.
    controller.resume()
    judge.wait_calls(2)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    controller.drift_tick()
    assert notifier.shown == []
