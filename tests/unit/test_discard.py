"""Discard a running commitment, on the fake clock: it goes to the history as discarded, never
counted as met or missed (the insights, the streaks, the day, the week and the coach's track
record ignore it), and the locked view shows no closure for it."""

from __future__ import annotations

import pytest

from antidrift.core import insights
from antidrift.core.domain import IllegalTransitionError, Outcome, RuntimeState
from antidrift.session.readmodel import ReadModel
from antidrift.store.sqlite import SQLiteStore
from antidrift.web import insights_view
from antidrift.web.words import Closure, Today
from tests.support.session import build_controller


def _met(controller, clock):
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
    clock.advance(600)
    controller.finish()
    return controller.end("met")


def _discarded(controller, clock):
    controller.enter_planning()
    controller.start_manual_commitment("Answer the mail", "Inbox empty", 20)
    clock.advance(300)
    return controller.discard()


def test_a_discarded_commitment_is_in_the_history_and_counted_nowhere(
    make_controller, clock, store
):
    controller = make_controller()
    _met(controller, clock)
    gone = _discarded(controller, clock)
    snap = controller.snapshot()
    assert snap.state is RuntimeState.LOCKED and snap.commitment is None
    assert snap.closure is None  # no "Met" or "Missed" to acknowledge
    reads = ReadModel(store)
    history = reads.history()
    assert [c.outcome for c in history] == [Outcome.DISCARDED, Outcome.MET]
    assert history[0].id == gone.id and history[0].actual_secs == 300
    figures = reads.ended_figures()
    assert insights.summarize(figures).count == 1
    assert insights.streaks(c.outcome for c in history).current == 1  # it breaks no run
    _met(controller, clock)
    history = reads.history()
    assert insights.streaks(c.outcome for c in history).current == 2
    assert Closure.of(history, history[0].id).streak == 2
    assert Today.of(history, clock.now()).count == 2
    day = reads.week(clock.now()).days[-1]
    assert (day.met, day.missed, day.focused_minutes) == (2, 0, 20)


def test_discard_while_paused_and_only_while_running(make_controller, clock):
    controller = make_controller()
    with pytest.raises(IllegalTransitionError):
        controller.discard()
    controller.enter_planning()
    with pytest.raises(IllegalTransitionError):
        controller.discard()
    controller.start_manual_commitment("Answer the mail", "Inbox empty", 20)
    clock.advance(60)
    controller.pause()
    clock.advance(120)
    gone = controller.discard()
    assert gone.outcome is Outcome.DISCARDED and gone.paused_secs == 120
    assert gone.actual_secs == 60
    with pytest.raises(IllegalTransitionError):
        controller.undo_finish()  # nothing to undo


def test_the_real_store_leaves_it_out_of_the_figures(tmp_path, clock):
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock)
    try:
        _met(controller, clock)
        _discarded(controller, clock)
        assert [e.outcome for e in store.ended_figures()] == [Outcome.MET]
        assert [c.outcome for c in store.history()] == [Outcome.DISCARDED, Outcome.MET]
        assert store.ended_figures(1) == [insights.Ended(1200, 600, Outcome.MET)]
    finally:
        controller.shutdown()
        store.close()


def test_insights_chart_and_figures_leave_it_out(make_controller, clock, store):
    controller = make_controller()
    _met(controller, clock)
    _discarded(controller, clock)
    history = store.history()
    view = insights_view.build(store.ended_figures(), history, {}, history, before=None)
    assert [c.label for c in view.chart.columns] == ["Write the intro"]
    assert view.summary.count == 1 and view.streaks.current == 1
    assert [e.commitment.outcome for e in view.entries] == [Outcome.DISCARDED, Outcome.MET]


def test_the_figures_skip_a_discarded_one_even_when_handed_it():
    items = [insights.Ended(600, 600, Outcome.MET), insights.Ended(600, 300, Outcome.DISCARDED)]
    summary = insights.summarize(items)
    assert (summary.count, summary.met, summary.actual_secs) == (1, 1, 600)


def test_time_per_app_leaves_it_out(tmp_path, clock):
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock)
    try:
        controller.enter_planning()
        controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
        controller.record_window("editor", "intro.md")
        clock.advance(30)
        controller.finish()
        controller.end("met")
        controller.enter_planning()
        controller.start_manual_commitment("Answer the mail", "Inbox empty", 20)
        controller.record_window("mail", "Inbox")
        clock.advance(30)
        controller.discard()
        assert store.app_totals() == {"editor": 30.0}
    finally:
        controller.shutdown()
        store.close()
