"""Breaks between commitments on the fake clock: taken after /end (or by itself), long after
every few met ones, ended early or by its clock ("Break over"), never judged; and what of the
rhythm a restart keeps (the closure, the break, Undo Finish, "5 minutes left" said once)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from antidrift.core.domain import IllegalTransitionError, RuntimeState, ValidationError
from antidrift.core.errors import WriteFailed
from antidrift.core.rhythm import BreakSettings, Rhythm
from antidrift.drift.policy import DriftSettings
from antidrift.server import adapters
from antidrift.session.breaks import BREAK_OVER
from antidrift.session.state import Tuning
from antidrift.settings import Settings
from antidrift.web.widgets import Announce, Icon, Title
from tests.fakes import FakeJudge, FakeStore, RecordingNotifier


def _commit_and_end(controller, clock, outcome="met", minutes=20):
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", minutes)
    clock.advance(60)
    controller.finish()
    return controller.end(outcome)


def test_a_break_after_end_lasts_the_setting_and_ends_with_break_over(make_controller, clock):
    notifier = RecordingNotifier()
    controller = make_controller(notifier=notifier)
    ended = _commit_and_end(controller, clock)
    rest = controller.breaks.take()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.LOCKED and snap.rest == rest
    assert rest.ends_at == clock.now() + timedelta(minutes=5) and not rest.long
    assert snap.closure == ended.id  # the closure stays beside the break
    assert Title.of(snap).text == "Break · 05:00 · AntiDrift"
    assert Icon.of(snap).state == "break"
    clock.advance(5 * 60 - 1)
    controller.breaks.tick()
    assert controller.snapshot().rest is not None and notifier.shown == []
    clock.advance(1)
    controller.breaks.tick()
    snap = controller.snapshot()
    assert snap.rest is None and snap.rested
    assert notifier.shown == [BREAK_OVER]
    assert Title.of(snap).text == "Break over · AntiDrift"
    controller.breaks.tick()
    assert notifier.shown == [BREAK_OVER]  # once
    controller.enter_planning()
    assert not controller.snapshot().rested


def test_the_fourth_met_commitment_of_the_day_earns_the_long_break(make_controller, clock):
    controller = make_controller()
    for _ in range(3):
        _commit_and_end(controller, clock)
        assert not controller.breaks.take().long
        controller.breaks.end()
    _commit_and_end(controller, clock, "missed")
    assert not controller.breaks.take().long  # a missed one earns no long break
    controller.breaks.end()
    _commit_and_end(controller, clock)
    rest = controller.breaks.take()
    assert rest.long and rest.ends_at == clock.now() + timedelta(minutes=15)
    controller.breaks.end()
    # Five minutes asked for on the long one's turn is a break, not "Long break" for five.
    rest = controller.breaks.take(5)
    assert not rest.long and rest.ends_at == clock.now() + timedelta(minutes=5)
    controller.breaks.end()
    assert controller.breaks.take("20").long  # as long or longer: the long one
    controller.breaks.end()
    _commit_and_end(controller, clock, "missed")  # still four met today, but this one missed
    assert not controller.breaks.take().long


def test_the_settings_choose_the_lengths(make_controller, clock):
    controller = make_controller(breaks=BreakSettings(7, 20, 1))
    _commit_and_end(controller, clock)
    rest = controller.breaks.take()
    assert rest.long and rest.ends_at == clock.now() + timedelta(minutes=20)
    controller.breaks.end()
    short = make_controller(breaks=BreakSettings(7, 20, 2))
    _commit_and_end(short, clock, "missed")
    assert short.breaks.take().ends_at == clock.now() + timedelta(minutes=7)


def test_minutes_given_win_and_bad_minutes_change_nothing(make_controller, clock, store):
    controller = make_controller()
    _commit_and_end(controller, clock)
    for bad in ("0", "121", "ten", 2.5, True, [5], "٣"):
        saved = store.rhythm
        with pytest.raises(ValidationError):
            controller.breaks.take(bad)
        assert controller.snapshot().rest is None and store.rhythm == saved
    rest = controller.breaks.take("12")
    assert rest.ends_at == clock.now() + timedelta(minutes=12)


def test_a_break_is_taken_only_while_locked_and_once(make_controller, clock, running):
    active = running()
    with pytest.raises(IllegalTransitionError):
        active.breaks.take()
    with pytest.raises(IllegalTransitionError):
        active.breaks.end()  # no break to end: 409
    controller = make_controller(store_=FakeStore())
    with pytest.raises(IllegalTransitionError):
        controller.breaks.end()
    controller.breaks.take()
    with pytest.raises(IllegalTransitionError):
        controller.breaks.take()  # one at a time
    controller.breaks.end()
    assert controller.snapshot().rest is None and not controller.snapshot().rested
    with pytest.raises(IllegalTransitionError):
        controller.breaks.end()


def test_planning_during_a_break_ends_it(make_controller, clock):
    controller = make_controller()
    _commit_and_end(controller, clock)
    controller.breaks.take()
    controller.enter_planning()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.PLANNING and snap.rest is None
    controller.cancel_planning()
    assert controller.snapshot().rest is None and controller.snapshot().closure is None


def test_auto_break_starts_it_when_the_outcome_is_recorded(make_controller, clock):
    controller = make_controller(breaks=BreakSettings(auto=True))
    _commit_and_end(controller, clock, "missed")
    rest = controller.snapshot().rest
    assert rest is not None and rest.ends_at == clock.now() + timedelta(minutes=5)


def test_no_window_is_judged_during_a_break(make_controller, clock):
    judge = FakeJudge()
    drift = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
    controller = make_controller(judge=judge, drift=drift)
    _commit_and_end(controller, clock)
    calls = len(judge.calls)
    controller.breaks.take()
    assert controller.record_window("firefox", "YouTube") is False
    assert not controller.wants_evidence()
    controller.drift_tick()
    clock.advance(120)
    controller.drift_tick()
    assert len(judge.calls) == calls


# -- a restart (the same store, a new controller) -------------------------------------------


def test_the_closure_and_the_break_survive_a_restart(make_controller, clock, store):
    ended = _commit_and_end(make_controller(), clock)
    first = make_controller(store_=store)
    assert first.snapshot().closure == ended.id
    rest = first.breaks.take()
    again = make_controller(store_=store)
    again.start()
    snap = again.snapshot()
    assert snap.rest == rest and snap.closure == ended.id
    clock.advance(5 * 60)
    again.breaks.tick()
    assert again.snapshot().rested
    third = make_controller(store_=store)  # "Break over" is still said after a restart
    assert third.snapshot().rested and third.snapshot().closure == ended.id
    third.enter_planning()
    assert not make_controller(store_=store).snapshot().rested  # until the next plan


def test_undo_finish_survives_a_restart_within_its_30_seconds(make_controller, clock, store):
    controller = make_controller()
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
    controller.pause()
    clock.advance(60)
    before = controller.snapshot().commitment
    controller.finish()
    clock.advance(10)
    restarted = make_controller(store_=store)
    restarted.start()
    assert restarted.snapshot().undo_until == before.paused_at + timedelta(seconds=90)
    back = restarted.undo_finish()
    assert back == before  # paused as it was, the same deadline
    with pytest.raises(IllegalTransitionError):
        make_controller(store_=store).undo_finish()  # once, restart or not


def test_a_rhythm_that_cannot_be_read_is_dropped(make_controller, clock, store):
    store.rhythm = '{"break": {"ends_at": 3}}'
    store.state = RuntimeState.LOCKED
    assert make_controller(store_=store).snapshot().rest is None  # unreadable: dropped
    assert Rhythm.parse("not json") == Rhythm()
    kept = Rhythm(closure="c1", asked=("c2", 720), rested=True)
    assert Rhythm.parse(kept.dump()) == kept
    for odd in ('{"asked": {"id": "c2", "secs": -1}}', '{"asked": {"id": 5, "secs": 1}}',
                '{"asked": {"id": "c2", "secs": true}}', '{"asked": ["c2"]}'):  # fmt: skip
        assert Rhythm.parse(odd) == Rhythm(), odd


def test_five_minutes_left_is_said_once_even_after_an_extension(running, clock):
    controller = running()  # 20 minutes
    clock.advance(15 * 60 + 30)  # 4:30 left
    snap = controller.snapshot()
    assert Announce.of(snap).text == "5 minutes left." and "5 min left" in Title.of(snap).text
    controller.extend(5)  # 9:30 left
    clock.advance(4 * 60 + 45)  # 4:45 left again
    snap = controller.snapshot()
    assert snap.commitment.seconds_left(snap.now) == 285
    assert Announce.of(snap).text == "" and "5 min left" not in Title.of(snap).text
    assert controller.snapshot().five_said


def test_an_extension_before_five_minutes_left_still_hears_it(running, clock):
    controller = running()
    clock.advance(10 * 60)  # 10 min left
    controller.extend(5)  # 15 left
    clock.advance(10 * 60 + 30)  # 4:30 left
    assert Announce.of(controller.snapshot()).text == "5 minutes left."


def test_the_settings_reach_the_breaks_when_they_change(make_controller, clock, tmp_path):
    parts, _, _ = adapters.tuning(
        Settings(
            data_dir=tmp_path,
            break_minutes=10,
            long_break_minutes=30,
            long_break_every=3,
            auto_break=True,
            notify="off",
        )
    )
    assert parts.breaks == BreakSettings(10, 30, 3, True)
    controller = make_controller()
    controller.retune(replace(Tuning(), breaks=parts.breaks))
    _commit_and_end(controller, clock, "missed")
    assert controller.snapshot().rest.ends_at == clock.now() + timedelta(minutes=10)


class _BreakWontSave(FakeStore):
    """The disk fills between the outcome's save and the automatic break's."""

    def save_rhythm(self, rhythm):
        if rhythm and '"break"' in rhythm:
            raise WriteFailed("the disk is full: free some space")
        super().save_rhythm(rhythm)


def test_an_automatic_break_that_cannot_be_saved_leaves_the_review_as_it_was(
    make_controller, clock
):
    """The outcome and its break are one change: a full disk keeps neither."""
    store = _BreakWontSave()
    controller = make_controller(store_=store, breaks=BreakSettings(auto=True))
    with pytest.raises(WriteFailed):
        _commit_and_end(controller, clock)
    snap = controller.snapshot()
    assert snap.state is RuntimeState.REVIEW and snap.closure is None and snap.rest is None
    assert store.commitments[snap.commitment.id].outcome is None
    assert store.state is RuntimeState.REVIEW and store.current.id == snap.commitment.id
