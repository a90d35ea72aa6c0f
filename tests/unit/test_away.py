"""Time away from the keyboard in the session, over the fakes and the fake clock: after the
away_after minutes without input the commitment is away (no window recorded as focus, the
guard waiting, the clock running); back, the absence is counted and asked about: counted as
a pause (the deadline moves, paused_secs grows) or kept on the clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import AWAY_MARK, IllegalTransitionError, RuntimeState
from antidrift.core.timing import credited
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.evidence.probe import WindowHandle
from antidrift.session.state import Tuning
from tests.fakes import START, RecordingNotifier, wait_until


class Enforcer:
    """The teeth's desktop adapter: records each window it is asked to put away."""

    def __init__(self) -> None:
        self.windows: list[WindowHandle] = []

    def __call__(self, window: WindowHandle) -> str:
        self.windows.append(window)
        return "minimized"


GRACE = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
TEETH = DriftSettings(
    timedelta(seconds=10), timedelta(seconds=300), 30, "minimize", timedelta(seconds=5)
)


def test_three_minutes_without_input_is_away_and_the_clock_keeps_running(running, clock, store):
    controller = running()
    controller.record_window("code", "intro.md")
    clock.advance(60)
    controller.record_window("code", "intro.md")  # input stops now
    for idle in range(5, 180, 5):  # the sampler asks every 5 s
        clock.advance(5)
        assert controller.note_idle(idle) is False  # not yet
    assert controller.snapshot().away.away is False
    clock.advance(5)
    assert controller.note_idle(180) is True  # three minutes: away
    snap = controller.snapshot()
    assert snap.away.away and snap.away.since == START + timedelta(minutes=1)
    assert snap.drift.status is DriftStatus.AWAY
    assert snap.commitment.seconds_left(snap.now) == 20 * 60 - 4 * 60  # the clock ran
    clock.advance(5 * 60)
    assert controller.snapshot().away.secs == 8 * 60  # since input stopped
    assert controller.expire_if_due() is False  # 20 minutes are not up


def test_no_window_is_stored_as_focus_while_away(running, clock, store):
    controller = running()
    controller.record_window("code", "intro.md")
    clock.advance(30)  # input stops at 0:30; the sampler still sees the editor
    for _ in range(30):
        clock.advance(5)
        controller.record_window("code", "intro.md")
    assert controller.note_idle(150) is False
    clock.advance(30)
    assert controller.note_idle(180) is True
    assert controller.record_window("firefox", "feed") is False  # nobody is looking at it
    clock.advance(10 * 60)
    # The samples since input stopped went; the away mark ends the editor's time there.
    rows = [s for _, s in store.sample_rows]
    assert [(s.app, s.title) for s in rows] == [("code", "intro.md"), AWAY_MARK]
    assert rows[-1].at == START + timedelta(seconds=30)
    shares = store.window_time(controller.snapshot().commitment.id, clock.now()).windows
    assert [(s.app, s.seconds) for s in shares] == [("code", 30.0)]
    assert [s.title for s in store.samples(controller.snapshot().commitment.id)] == ["intro.md"]


def test_no_judge_call_no_nudge_and_no_teeth_while_away(make_controller, judge, clock):
    notifier, enforcer = RecordingNotifier(), Enforcer()
    controller = make_controller(judge=judge, drift=TEETH, notifier=notifier, enforcer=enforcer)
    controller.enter_planning()
    controller.start_manual_commitment(
        "Write the intro", "Intro in the doc", 60, enforce="minimize"
    )
    controller.record_window("firefox", "feed", exact=WindowHandle("x11", "7"))
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    clock.advance(180)
    assert controller.note_idle(180) is True  # walked away right after opening the feed
    for _ in range(20):  # far past the grace and the teeth's wait
        clock.advance(30)
        controller.drift_tick()
        controller.record_window("youtube", "a video", exact=WindowHandle("x11", "8"))
    assert notifier.shown == [] and enforcer.windows == []
    assert len(judge.calls) == 1  # the new window went to no judge
    assert controller.snapshot().drift.status is DriftStatus.AWAY


def test_back_the_absence_is_counted_and_asked_about(running, clock, store):
    controller = running()
    clock.advance(60)
    controller.note_idle(200)  # input stopped 200 s ago, at 0:-140 → the start
    clock.advance(12 * 60)
    assert controller.note_idle(12 * 60 + 200) is True  # still no input
    assert controller.note_idle(2) is False  # input two seconds ago: back
    snap = controller.snapshot()
    away_secs = 13 * 60 - 2  # from the start (input stopped before it) to the input
    assert (snap.away.away, snap.away.secs, snap.away.returned_secs) == (
        False,
        away_secs,
        away_secs,
    )
    assert store.current.away_secs == away_secs  # saved
    assert snap.drift.status is not DriftStatus.AWAY
    assert controller.record_window("code", "intro.md") is True


def test_count_it_as_a_pause_moves_the_deadline_and_grows_paused_secs(running, clock, store):
    controller = running()
    deadline = controller.snapshot().commitment.deadline
    clock.advance(5 * 60)
    controller.note_idle(180)
    clock.advance(9 * 60)
    controller.note_idle(0)  # back after 12 minutes away
    controller.credit_away()
    c = controller.snapshot().commitment
    assert c.deadline == deadline + timedelta(minutes=12) and c.paused_secs == 12 * 60
    assert store.current.deadline == c.deadline and store.current.paused_secs == 12 * 60
    assert controller.snapshot().away.returned_secs == 0  # answered
    with pytest.raises(IllegalTransitionError, match="not been away"):
        controller.credit_away()  # once only
    assert controller.snapshot().commitment.deadline == c.deadline


def test_the_question_stays_through_a_pause_and_can_be_answered_after_it(running, clock):
    """Pause pressed on coming back is no answer to "You were away 12 min"."""
    controller = running()
    clock.advance(5 * 60)
    controller.note_idle(180)
    clock.advance(9 * 60)
    controller.note_idle(0)  # back after 12 minutes away
    controller.pause()
    assert controller.snapshot().away.returned_secs == 12 * 60
    clock.advance(60)
    controller.resume()
    assert controller.snapshot().away.returned_secs == 12 * 60
    before = controller.snapshot().commitment
    assert controller.credit_away() == 12 * 60
    after = controller.snapshot().commitment
    assert after.deadline == before.deadline + timedelta(minutes=12)
    assert controller.snapshot().away.returned_secs == 0
    # Finish takes it away with the commitment: the review says how much was away.
    controller.note_idle(0)
    clock.advance(4 * 60)
    controller.note_idle(240)  # away again, back: asked again
    clock.advance(60)
    controller.note_idle(0)
    assert controller.snapshot().away.returned_secs > 0
    controller.finish()
    controller.undo_finish()
    assert controller.snapshot().away.returned_secs == 0


def test_keep_counting_leaves_the_clock_alone(running, clock, store):
    controller = running()
    deadline = controller.snapshot().commitment.deadline
    clock.advance(5 * 60)
    controller.note_idle(180)
    clock.advance(60)
    controller.note_idle(0)
    saves = len(store.saves)
    controller.dismiss_away()
    snap = controller.snapshot()
    assert snap.commitment.deadline == deadline and snap.away.returned_secs == 0
    assert len(store.saves) == saves and snap.commitment.away_secs == 4 * 60
    with pytest.raises(IllegalTransitionError, match="not been away"):
        controller.dismiss_away()


def test_credit_and_dismiss_refuse_without_an_absence_and_change_nothing(running, store):
    controller = running()
    saves = len(store.saves)
    for move in (controller.credit_away, controller.dismiss_away):
        with pytest.raises(IllegalTransitionError, match="not been away"):
            move()
    assert len(store.saves) == saves


def test_a_timebox_that_ran_out_while_away_goes_to_review_saying_how_much(running, clock, store):
    controller = running()
    clock.advance(15 * 60)
    controller.note_idle(180)  # away since 12:00
    clock.advance(10 * 60)
    assert controller.expire_if_due() is True
    snap = controller.snapshot()
    assert snap.state is RuntimeState.REVIEW and snap.commitment.ran_out
    assert snap.commitment.away_secs == 8 * 60  # 12:00 to the deadline at 20:00
    assert store.current.away_secs == 8 * 60
    assert controller.note_idle(0) is False  # back, in review: nothing to ask
    controller.end("missed")
    assert store.history()[0].away_secs == 8 * 60


def test_away_after_zero_is_never_away(running, clock):
    controller = running(away_after=0)
    clock.advance(60)
    assert controller.note_idle(3600) is False
    assert controller.snapshot().away.away is False


def test_pause_while_away_ends_the_absence_there(running, clock, store):
    controller = running()
    clock.advance(5 * 60)
    controller.note_idle(180)
    clock.advance(60)
    controller.pause()
    snap = controller.snapshot()
    assert not snap.away.away and snap.commitment.away_secs == 4 * 60
    assert store.current.away_secs == 4 * 60
    assert controller.note_idle(600) is False  # paused: the idle time is no one's concern
    assert controller.snapshot().drift.status is DriftStatus.PAUSED


def test_the_guard_counts_the_window_from_the_return_not_from_before(running, judge, clock):
    notifier = RecordingNotifier()
    controller = running(judge=judge, drift=GRACE, notifier=notifier)
    controller.record_window("firefox", "feed")
    judge.wait_calls(1)
    wait_until(lambda: controller.snapshot().drift.status is DriftStatus.DRIFTING)
    clock.advance(180)  # (no tick meanwhile: the feed's grace has not been looked at)
    assert controller.note_idle(180) is True
    clock.advance(10 * 60)
    controller.note_idle(0)  # back, the feed still in front
    assert controller.snapshot().drift.status is DriftStatus.DRIFTING
    clock.advance(59)
    controller.drift_tick()
    assert notifier.shown == []  # the grace runs from the return
    clock.advance(1)
    controller.drift_tick()
    assert [title for title, _ in notifier.shown] == ["Drifting? · AntiDrift"]


def test_credited_is_pure_and_never_goes_back(running):
    c = running().snapshot().commitment
    assert credited(c, -5) == c
    assert credited(c, 60).deadline == c.deadline + timedelta(seconds=60)


def test_the_start_and_a_return_are_input_away_counts_from_the_later(running, clock):
    controller = running()
    clock.advance(60)
    assert controller.note_idle(600) is False  # idle since before the start: it was input
    clock.advance(120)
    assert controller.note_idle(720) is True  # three minutes from the start
    assert controller.snapshot().away.since == START
    assert controller.note_idle(0) is False  # back
    assert controller.note_idle(400) is False  # a lagging source: the return was input
    clock.advance(180)
    assert controller.note_idle(580) is True
    assert controller.snapshot().away.since == START + timedelta(minutes=3)


def test_finish_while_away_counts_the_absence_and_undo_keeps_it(running, clock, store):
    controller = running()
    clock.advance(8 * 60)
    controller.note_idle(180)  # away since 5:00
    clock.advance(60)
    controller.finish()
    assert controller.snapshot().commitment.away_secs == 4 * 60
    controller.undo_finish()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.ACTIVE and snap.commitment.away_secs == 4 * 60
    assert snap.away.away is False and store.current.away_secs == 4 * 60


def test_a_changed_setting_applies_at_once_zero_ends_an_absence(running, clock):
    controller = running()
    clock.advance(4 * 60)
    assert controller.note_idle(240) is True
    controller.retune(Tuning(away_after=0))
    assert controller.note_idle(250) is False  # off: back, counted
    assert controller.snapshot().commitment.away_secs == 4 * 60  # from the start to now
    controller.retune(Tuning(away_after=10))
    clock.advance(5 * 60)
    assert controller.note_idle(5 * 60) is False  # ten minutes now


def test_a_restart_while_away_takes_the_absence_up_again_and_counts_it_once(
    running, make_controller, clock, store
):
    controller = running()
    clock.advance(5 * 60)
    assert controller.note_idle(180) is True  # away since 2:00
    controller.shutdown()
    clock.advance(60)
    again = make_controller()
    again.start()
    assert again.snapshot().away.away is False  # nothing said yet since the restart
    assert again.note_idle(240) is True  # the desktop still says 4 minutes
    assert again.snapshot().away.since == START + timedelta(minutes=2)
    clock.advance(60)
    assert again.note_idle(0) is False
    assert again.snapshot().commitment.away_secs == 5 * 60  # 2:00 to 7:00, once


def test_the_question_survives_a_restart_and_is_answered_once(running, make_controller, clock):
    controller = running()
    clock.advance(5 * 60)
    controller.note_idle(180)
    clock.advance(9 * 60)
    controller.note_idle(0)  # back after 12 minutes away: asked
    controller.shutdown()
    again = make_controller()
    again.start()
    assert again.snapshot().away.returned_secs == 12 * 60  # still asked after the restart
    assert again.credit_away() == 12 * 60
    third = make_controller()
    third.start()
    assert third.snapshot().away.returned_secs == 0  # answered: never asked again
    with pytest.raises(IllegalTransitionError, match="not been away"):
        third.credit_away()


def test_discarding_while_away_ends_the_absence_the_next_commitment_starts_present(
    running, clock, store
):
    controller = running()
    clock.advance(4 * 60)
    assert controller.note_idle(180) is True
    controller.discard()
    assert store.history()[0].away_secs == 3 * 60
    controller.enter_planning()
    controller.start_manual_commitment("Write the outro", "Outro in the doc", 20)
    assert controller.snapshot().away.away is False
    assert controller.record_window("code", "outro.md") is True


def test_an_absence_that_ended_at_a_pause_or_finish_is_never_counted_again(running, clock):
    """Pause, Resume and Undo Finish need no local input (`antidrift pause` from a phone, a
    script): the desktop may still say idle since before. What ended there was counted."""
    controller = running()
    clock.advance(8 * 60)
    assert controller.note_idle(180) is True  # away since 5:00
    clock.advance(60)
    controller.pause()  # 9:00: 4 min counted
    clock.advance(5 * 60)
    controller.resume()  # 14:00, input still stopped at 5:00
    assert controller.note_idle(9 * 60) is False  # the pause was no absence
    clock.advance(3 * 60)
    assert controller.note_idle(12 * 60) is True  # away again, from the resume on
    assert controller.snapshot().away.since == START + timedelta(minutes=14)
    clock.advance(60)
    assert controller.note_idle(0) is False  # back at 18:00
    assert controller.snapshot().commitment.away_secs == 4 * 60 + 4 * 60
    clock.advance(3 * 60 + 10)
    assert controller.note_idle(190) is True  # away since 18:00
    clock.advance(60)
    controller.finish()  # 22:10: 4:10 more (the timebox had moved by the pause)
    controller.undo_finish()
    assert controller.note_idle(250) is False  # still idle since 18:00: counted already
    assert controller.snapshot().commitment.away_secs == 8 * 60 + 250


def test_more_time_after_a_timebox_ran_out_while_away_counts_no_absence_again(running, clock):
    controller = running()
    clock.advance(15 * 60)
    assert controller.note_idle(180) is True  # away since 12:00
    clock.advance(6 * 60)
    assert controller.expire_if_due() is True  # 8 min counted, to the deadline at 20:00
    clock.advance(5 * 60)  # five minutes in review
    controller.extend(10)  # from elsewhere: the desktop still idle since 12:00
    assert controller.note_idle(13 * 60) is False  # the review was no absence
    assert controller.snapshot().commitment.away_secs == 8 * 60
