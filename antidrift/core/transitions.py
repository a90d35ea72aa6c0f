"""The one transition table: for each stage of the loop, the moves that exist there and the
stage each leads to. A break is a stage of its own (stored and shown as locked with a break:
`runtime_state` keeps the loop's four names). A move the table does not list for the current
stage is refused (409) with a sentence, before anything is written."""

from __future__ import annotations

from enum import StrEnum

from antidrift.core.domain import RuntimeState, describe
from antidrift.core.errors import IllegalTransitionError


class Stage(StrEnum):
    """Where the loop is: the runtime state, with a break told apart from locked."""

    LOCKED = "locked"
    BREAK = "break"
    PLANNING = "planning"
    ACTIVE = "active"
    REVIEW = "review"


class Move(StrEnum):
    """Every command that moves the session; the value is how a refusal names it."""

    PLAN = "plan"
    DRAFT = "save a draft"
    PICK_MINUTES = "pick minutes"
    SHARPEN = "ask the coach"
    CANCEL_COACH = "cancel the coach"
    REFLECT = "ask for a reflection"
    PICK_TASK = "pick a task"
    USE_PROPOSAL = "use a proposal"
    CANCEL_PLANNING = "cancel planning"
    START = "start a commitment"
    PAUSE = "pause"
    RESUME = "resume"
    EDIT = "change the next action"
    EXTEND = "add time"
    EXPIRE = "run out of time"
    FINISH = "finish"
    UNDO_FINISH = "undo Finish"
    DISCARD = "discard"
    SAMPLE = "record a window"
    AWAY = "be away"
    CREDIT_AWAY = "count time away as a pause"
    DISMISS_AWAY = "dismiss the time away"
    ANSWER_DRIFT = "answer the drift guard"
    END = "record an outcome"
    END_WITH_BREAK = "record an outcome and take a break"
    TAKE_BREAK = "take a break"
    END_BREAK = "end the break"
    BREAK_OVER = "let the break run out"
    FOLLOW = "guard another machine's commitment here"
    STOP_FOLLOWING = "stop guarding another machine's commitment"


L, B, P, A, R = Stage.LOCKED, Stage.BREAK, Stage.PLANNING, Stage.ACTIVE, Stage.REVIEW

# (stage, move) → the stage it leads to. Nothing else is allowed.
TRANSITIONS: dict[tuple[Stage, Move], Stage] = {
    (L, Move.PLAN): P,
    (B, Move.PLAN): P,
    (L, Move.TAKE_BREAK): B,
    (B, Move.END_BREAK): L,
    (B, Move.BREAK_OVER): L,
    (P, Move.DRAFT): P,
    (P, Move.PICK_MINUTES): P,
    (P, Move.SHARPEN): P,
    (P, Move.CANCEL_COACH): P,
    (R, Move.REFLECT): R,
    (P, Move.PICK_TASK): P,
    (P, Move.USE_PROPOSAL): P,
    (P, Move.CANCEL_PLANNING): L,
    (P, Move.START): A,
    (A, Move.PAUSE): A,
    (A, Move.RESUME): A,
    (A, Move.EDIT): A,
    (A, Move.EXTEND): A,
    (A, Move.EXPIRE): R,
    (A, Move.FINISH): R,
    (A, Move.DISCARD): L,
    (A, Move.SAMPLE): A,
    (A, Move.AWAY): A,
    (A, Move.CREDIT_AWAY): A,
    (A, Move.DISMISS_AWAY): A,
    (A, Move.ANSWER_DRIFT): A,
    (R, Move.EXTEND): A,  # only when the timebox ran out (not after Finish)
    (R, Move.UNDO_FINISH): A,
    (R, Move.END): L,
    (R, Move.END_WITH_BREAK): B,
    # Guard here too: locked, this machine's guard works for another machine's commitment.
    # Plan and a break end it (core/session.py): a commitment of this machine's own comes first.
    (L, Move.FOLLOW): L,
    (L, Move.STOP_FOLLOWING): L,
}

# Refusals that say more than where the user is.
_REFUSED = {
    (B, Move.TAKE_BREAK): "You are on a break already: end it, or plan the next commitment.",
    (L, Move.END_BREAK): "There is no break to end.",
    (P, Move.END_BREAK): "There is no break to end.",
    (A, Move.END_BREAK): "There is no break to end.",
    (R, Move.END_BREAK): "There is no break to end.",
    (B, Move.FOLLOW): "You are on a break: end it first, then guard the other machine's"
    " commitment here.",
}


# Moves of one stage alone, refused in every other with the same sentence.
_ONLY = {
    Move.DRAFT: "You can save a draft only while planning.",
    Move.PICK_TASK: "You can pick a task only while planning.",
    Move.USE_PROPOSAL: "You can use a proposal only while planning.",
    Move.STOP_FOLLOWING: "You are not guarding another machine's commitment here.",
}


def state_of(stage: Stage) -> RuntimeState:
    """The runtime state a stage is stored and shown as."""
    return RuntimeState.LOCKED if stage is Stage.BREAK else RuntimeState(stage.value)


def check(stage: Stage, move: Move) -> Stage:
    """The stage `move` leads to from `stage`; IllegalTransitionError (409) when the table
    does not list it, said as a sentence."""
    found = TRANSITIONS.get((stage, move))
    if found is None:
        said = _REFUSED.get((stage, move)) or _ONLY.get(move)
        where = describe(state_of(stage))
        raise IllegalTransitionError(said or f"You can't {move.value} now: {where}.")
    return found
