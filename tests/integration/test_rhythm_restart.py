"""What a restart keeps of the rhythm, over the real SQLite store closed and opened again:
the closure the locked view acknowledges ("Met · 2 in a row"), a break under way, the Undo
Finish window, and "5 minutes left" said once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import IllegalTransitionError, RuntimeState
from antidrift.store.sqlite import SQLiteStore
from antidrift.web.widgets import Announce
from antidrift.web.words import Closure
from tests.fakes import FakeClock
from tests.support.session import build_controller


@pytest.fixture
def reopen(tmp_path):
    """reopen(): the controller over the database file, the one before closed (a restart)."""
    path = tmp_path / "antidrift.sqlite3"
    opened: list = []

    def make():
        for controller, store in opened:
            controller.shutdown()
            store.close()
        opened.clear()
        store = SQLiteStore(path)
        controller = build_controller(store, clock)
        controller.start()
        opened.append((controller, store))
        make.store = store
        return controller

    clock = FakeClock()
    make.clock = clock
    yield make
    for controller, store in opened:
        controller.shutdown()
        store.close()


def _met(controller, clock):
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
    clock.advance(60)
    controller.finish()
    return controller.end("met")


def test_the_closure_and_a_break_outlive_a_restart(reopen):
    clock = reopen.clock
    controller = reopen()
    _met(controller, clock)
    ended = _met(controller, clock)
    rest = controller.breaks.take()
    controller = reopen()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.LOCKED and snap.closure == ended.id
    assert snap.rest == rest
    closure = Closure.of(reopen.store.history(), snap.closure)
    assert (closure.met, closure.streak) == (True, 2)  # "Met · 2 in a row", not forgotten
    clock.advance(5 * 60)
    controller.breaks.tick()
    controller = reopen()
    assert controller.snapshot().rest is None  # ended before the restart: stays ended


def test_undo_finish_outlives_a_restart_within_30_seconds_and_only_then(reopen):
    clock = reopen.clock
    controller = reopen()
    controller.enter_planning()
    before = controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
    clock.advance(120)
    controller.finish()
    clock.advance(20)
    controller = reopen()
    assert controller.snapshot().undo_until is not None
    assert controller.undo_finish() == before
    assert controller.snapshot().commitment.deadline == before.deadline
    clock.advance(60)
    controller.finish()
    clock.advance(31)
    controller = reopen()
    assert controller.snapshot().undo_until is None
    with pytest.raises(IllegalTransitionError):
        controller.undo_finish()


def test_five_minutes_left_is_not_said_again_after_a_restart(reopen):
    clock = reopen.clock
    controller = reopen()
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
    clock.advance(timedelta(minutes=15, seconds=30))
    controller.extend(5)
    controller = reopen()
    clock.advance(timedelta(minutes=4, seconds=45))
    assert Announce.of(controller.snapshot()).text == ""
