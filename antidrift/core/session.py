"""The session as one aggregate, and the one transition table that decides every move.

`FocusSession` holds everything the loop keeps between requests: the runtime state, the
commitment, the window seen last, the rhythm (closure, break, Undo Finish, the away
question), the planning draft, the absence under way, and which outcome went to a task tool.
It does no I/O: the session wing's handlers move it inside one unit of work, which writes it
in one transaction and, on a rollback, puts back the copy it took before (`memento`).

The table lists, for each stage of the loop, the moves that exist there and the stage each
leads to. A break is a stage of its own (stored and shown as locked with a break:
`runtime_state` keeps the loop's four names). A move the table does not list for the current
stage is refused (409) with a sentence, before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from antidrift.core.domain import Commitment, RuntimeState, WindowSample, describe
from antidrift.core.errors import IllegalTransitionError
from antidrift.core.rhythm import Rhythm


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


L, B, P, A, R = Stage.LOCKED, Stage.BREAK, Stage.PLANNING, Stage.ACTIVE, Stage.REVIEW

# (stage, move) → the stage it leads to. Nothing else is allowed.
TRANSITIONS: dict[tuple[Stage, Move], Stage] = {
    (L, Move.PLAN): P,
    (B, Move.PLAN): P,
    (L, Move.TAKE_BREAK): B,
    (B, Move.END_BREAK): L,
    (B, Move.BREAK_OVER): L,
    (P, Move.DRAFT): P,
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
}

# Refusals that say more than where the user is.
_REFUSED = {
    (B, Move.TAKE_BREAK): "You are on a break already: end it, or plan the next commitment.",
    (L, Move.END_BREAK): "There is no break to end.",
    (P, Move.END_BREAK): "There is no break to end.",
    (A, Move.END_BREAK): "There is no break to end.",
    (R, Move.END_BREAK): "There is no break to end.",
}


# Moves of one stage alone, refused in every other with the same sentence.
_ONLY = {
    Move.DRAFT: "You can save a draft only while planning.",
    Move.PICK_TASK: "You can pick a task only while planning.",
    Move.USE_PROPOSAL: "You can use a proposal only while planning.",
}


def state_of(stage: Stage) -> RuntimeState:
    """The runtime state a stage is stored and shown as."""
    return RuntimeState.LOCKED if stage is Stage.BREAK else RuntimeState(stage.value)


@dataclass(frozen=True)
class Absence:
    """Time away from the keyboard: away since when (None: here), and the last return."""

    since: datetime | None = None  # input stopped then
    back_at: datetime | None = None  # input came then (or the clock ran again from elsewhere)


@dataclass
class FocusSession:
    """The aggregate: every field is a value, so a copy is a memento."""

    state: RuntimeState = RuntimeState.LOCKED
    commitment: Commitment | None = None
    last_sample: WindowSample | None = None
    rhythm: Rhythm = Rhythm()
    draft: object = None  # the planning form (session.drafts.Draft) while planning
    absence: Absence = Absence()
    recorded: str | None = None  # the commitment whose outcome went to a task tool
    watcher_running: bool = False  # told by the window sampler

    @property
    def stage(self) -> Stage:
        if self.state is RuntimeState.LOCKED and self.rhythm.rest is not None:
            return Stage.BREAK
        return Stage(self.state.value)

    def allows(self, move: Move) -> bool:
        """Whether the table lists `move` from here."""
        return (self.stage, move) in TRANSITIONS

    def check(self, move: Move) -> Stage:
        """The stage `move` leads to from here; IllegalTransitionError (409) when the table
        does not list it, said as a sentence."""
        stage = self.stage
        found = TRANSITIONS.get((stage, move))
        if found is None:
            said = _REFUSED.get((stage, move)) or _ONLY.get(move)
            where = describe(state_of(stage))
            raise IllegalTransitionError(said or f"You can't {move.value} now: {where}.")
        return found

    def memento(self) -> FocusSession:
        return replace(self)

    def restore(self, memento: object) -> None:
        assert isinstance(memento, FocusSession)
        self.__dict__.update(memento.__dict__)
