"""The one transition table (core/transitions.py) and the aggregate's moves (core/session.py):
every move exists somewhere, and a move the table does not list for the current stage is a
409 with a sentence before the aggregate moves at all."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, IllegalTransitionError, RuntimeState
from antidrift.core.rhythm import Break, Rhythm
from antidrift.core.session import FocusSession
from antidrift.core.transitions import TRANSITIONS, Move, Stage, state_of
from tests.fakes import START

NOW = START + timedelta(minutes=5)
C = Commitment("c-1", "Write", "Done", 25 * 60, START, START + timedelta(minutes=25))
REST = Break(START, START + timedelta(minutes=5), False)


def in_stage(stage: Stage) -> FocusSession:
    """An aggregate standing in `stage`."""
    return {
        Stage.LOCKED: lambda: FocusSession(),
        Stage.BREAK: lambda: FocusSession(rhythm=Rhythm(rest=REST)),
        Stage.PLANNING: lambda: FocusSession(RuntimeState.PLANNING, draft="a draft"),
        Stage.ACTIVE: lambda: FocusSession(RuntimeState.ACTIVE, C),
        Stage.REVIEW: lambda: FocusSession(RuntimeState.REVIEW, C.stopped(NOW)),
    }[stage]()


# Each move the aggregate makes itself, as its handler calls it.
MOVES = {
    Move.PLAN: lambda f: f.plan("a draft"),
    Move.CANCEL_PLANNING: lambda f: f.cancel_planning(),
    Move.START: lambda f: f.start(C),
    Move.PAUSE: lambda f: f.pause(NOW),
    Move.RESUME: lambda f: f.resume(NOW),
    Move.EDIT: lambda f: f.edit("Write more"),
    Move.FINISH: lambda f: f.finish(NOW),
    Move.DISCARD: lambda f: f.discard(NOW),
    Move.END: lambda f: f.end("met", ""),
    Move.END_WITH_BREAK: lambda f: f.end("met", "", lambda ended: REST),
    Move.TAKE_BREAK: lambda f: f.take_break(REST),
    Move.END_BREAK: lambda f: f.end_break(),
    Move.CREDIT_AWAY: lambda f: f.answer_away(Move.CREDIT_AWAY),
    Move.DISMISS_AWAY: lambda f: f.answer_away(Move.DISMISS_AWAY),
}


def test_every_move_exists_in_some_stage_and_every_stage_has_a_way_out():
    assert {move for _, move in TRANSITIONS} == set(Move)
    for stage in Stage:
        assert any(s is stage and to is not stage for (s, _), to in TRANSITIONS.items()), stage


def test_a_break_is_a_stage_but_stored_and_shown_as_locked():
    assert in_stage(Stage.BREAK).stage is Stage.BREAK
    assert state_of(Stage.BREAK) is RuntimeState.LOCKED
    assert TRANSITIONS[(Stage.REVIEW, Move.END_WITH_BREAK)] is Stage.BREAK


@pytest.mark.parametrize("stage", list(Stage))
def test_a_move_not_in_the_table_is_refused_with_a_sentence_and_moves_nothing(stage):
    refused = [m for m in MOVES if (stage, m) not in TRANSITIONS]
    assert refused
    for move in refused:
        focus = in_stage(stage)
        before = focus.memento()
        with pytest.raises(IllegalTransitionError) as caught:
            MOVES[move](focus)
        assert caught.value.status == 409
        assert caught.value.message.endswith(".") and "{" not in caught.value.message
        assert focus == before, move


@pytest.mark.parametrize("stage", list(Stage))
def test_a_move_in_the_table_leads_where_the_table_says(stage):
    for move, make in MOVES.items():
        to = TRANSITIONS.get((stage, move))
        if to is None or move in (Move.RESUME, Move.CREDIT_AWAY, Move.DISMISS_AWAY):
            continue  # those need a pause or an absence first (refused otherwise: their own test)
        focus = in_stage(stage)
        make(focus)
        assert focus.stage is to, (stage, move)


def test_a_running_commitment_pauses_and_resumes_through_its_moves():
    focus = in_stage(Stage.ACTIVE)
    with pytest.raises(IllegalTransitionError, match="not paused"):
        focus.resume(NOW)
    focus.pause(NOW)
    with pytest.raises(IllegalTransitionError, match="is paused"):
        focus.pause(NOW)
    resumed = focus.resume(NOW + timedelta(minutes=2))
    assert resumed.deadline == C.deadline + timedelta(minutes=2) and focus.stage is Stage.ACTIVE
