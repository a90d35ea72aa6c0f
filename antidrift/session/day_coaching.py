"""Sharpen the day (POST /day/sharpen, in any state): a rough day in the user's words becomes
at most eight proposed commitments that fit the free time left today, and the user adds from
them to the queue (POST /day/proposal/use). The AI proposes; the user owns the queue: a
proposal only ever adds items at its end, never changes one.

Shaped like Coaching (Sharpen), on its coach and its executor: one call at a time, a newer
request supersedes an older one (whose CLI is killed once the change is committed, and which
never starts if it is still queued); no coach, or a CLI that is missing, slow or failing, is
a sentence on the page, and the queue works by hand. The coach is told the free stretches'
start times and minutes, never an event (ai/day_plan.py). Each entry of its answer is held
to a typed plan's rules (coaching.proposed_plan): one that fails is left out and counted, and
only an answer with none left is refused, in the coach's words ("no usable plan"). Adding
from it is one change: the entries added leave the proposal, and an empty one is gone. Kept
by the unit of work (a rollback puts the proposal back) and in memory only.
"""

from __future__ import annotations

import itertools
import logging
import secrets
from dataclasses import dataclass, replace
from datetime import datetime

from antidrift.ai import Cancelled, CoachError
from antidrift.ai.day_plan import Asker, DayAnswer, plan_day
from antidrift.core.day import DayItem, ItemFields
from antidrift.core.domain import (
    IllegalTransitionError,
    NotFound,
    Plan,
    ValidationError,
    validate_intent,
)
from antidrift.process import CancelScope
from antidrift.session.coaching import Coaching, proposed_plan, unusable_proposal
from antidrift.session.day import DayQueue
from antidrift.session.snapshot import CoachStatus, DayPlanView
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

log = logging.getLogger("antidrift.day_coaching")

DAY_LABEL = "Your rough day"  # how a refusal of the intent names it
NO_PROPOSAL = "There is no proposal to add from (any more): Sharpen the day first."
CHANGED = "The proposal changed since this page showed it: look at it again, then add."
NO_ENTRY = "There is no such entry in the proposal (any more): look at it again."
FAILED = "The coach failed unexpectedly; see the log."
WHICH = "Say which to add: index=<n> (0 is the first), or all=1."
_YES = ("1", "true", "on", "yes")


@dataclass(eq=False)
class DayCall:
    """One Sharpen the day in flight: its scope kills the CLI."""

    scope: CancelScope


class DayPlans:
    """Owns the day's proposal (ephemeral, like the coach's). Methods marked "under the lock"
    are called inside the unit of work; the rest open their own."""

    def __init__(
        self, work: UnitOfWork, session: Session, day: DayQueue, coaching: Coaching
    ) -> None:
        self._work, self._s, self._day = work, session, day
        self._coaching = coaching  # its coach (retuned with the settings) and its executor
        self._boot = secrets.token_hex(4)  # keys never repeat across restarts
        self._count = itertools.count()
        self._view = DayPlanView(key=self._key())
        self._call: DayCall | None = None
        self._closed = False

    def _key(self) -> str:
        return f"{self._boot}-{next(self._count)}"

    def view(self) -> DayPlanView:
        """Under the lock: the proposal as /day shows it."""
        return self._view

    def current(self) -> DayPlanView:
        """The proposal as it is now, for a reader outside a change (/day.json)."""
        with self._work:
            return self._view

    def memento(self) -> tuple:
        return self._view, self._call

    def restore(self, memento: object) -> None:
        """After a rollback; a call the change stopped is gone (Sharpen the day asks again)."""
        self._view, self._call = memento  # type: ignore[misc]
        if self._call is not None and self._call.scope.cancelled:
            self._call, self._view = None, DayPlanView(key=self._key())

    def _show(self, view: DayPlanView) -> None:
        """Under the lock: what /day shows now, under a new key."""
        self._view = replace(view, key=self._key())
        self._work.changed()

    def request(self, intent: object) -> DayPlanView:
        """POST /day/sharpen: ask the coach for the day (in any state); the view as it is now,
        pending or saying why there is no coach. The answer arrives through the listeners."""
        with self._work:
            text = validate_intent(intent, DAY_LABEL)
            now = self._s.now()
            self._cancel_call()  # the newer request supersedes
            coach = self._coaching.coach
            if not isinstance(coach, Asker) or self._closed:
                self._show(DayPlanView(CoachStatus.ERROR, error=self._coaching.unavailable))
                return self._view
            call = self._call = DayCall(CancelScope())
            self._show(DayPlanView(CoachStatus.PENDING, pending_since=now))
            view = self._view
        try:  # after the listeners: the pages show it pending first
            self._coaching.executor.submit(self._run, call, coach, text, now)
        except RuntimeError:  # the executor is shutting down with the server
            call.scope.cancel()
        return view

    def _run(self, call: DayCall, coach: Asker, text: str, now: datetime) -> None:
        if call.scope.cancelled:
            return  # superseded while queued: a stale call never starts its CLI
        try:
            spans = [(local_hhmm(start), m) for start, m in self._day.free_spans(now)]
            view = checked(plan_day(coach, text, spans, scope=call.scope))
        except Cancelled:
            return
        except CoachError as exc:
            view = DayPlanView(CoachStatus.ERROR, error=str(exc))
        except Exception:
            log.exception("Sharpen the day failed unexpectedly")
            view = DayPlanView(CoachStatus.ERROR, error=FAILED)
        with self._work:
            if call is not self._call:
                return  # superseded or stopped: discarded silently
            self._call = None
            self._show(view)

    def use(self, index: object = None, every: object = None, key: object = None) -> list[DayItem]:
        """POST /day/proposal/use: the entry at `index` (or every one, in order, with `every`)
        added to the queue as POST /day/items adds one, all or none (at most 50 items), in one
        change; what was added leaves the proposal. `key`: the proposal the page shows (an
        older one is refused: its indexes may name other entries now)."""
        with self._work:
            view = self._view
            if view.status != CoachStatus.READY or not view.items:
                raise IllegalTransitionError(NO_PROPOSAL)
            if key not in (None, "") and key != view.key:
                raise IllegalTransitionError(CHANGED)
            if isinstance(every, str | int) and str(every).strip().lower() in _YES:
                picked = list(range(len(view.items)))
            else:
                picked = [entry_index(index, len(view.items))]
            added = self._day.add_all([item_fields(view.items[i]) for i in picked])
            rest = tuple(p for i, p in enumerate(view.items) if i not in picked)
            self._show(replace(view, items=rest) if rest else DayPlanView())
        return added

    def _cancel_call(self) -> None:
        """Under the lock: the running call no longer counts; its CLI is killed (its whole
        process group) once the change is committed, and lives on if it is not."""
        if self._call is not None:
            self._work.then(self._call.scope.cancel)
            self._call = None

    def shutdown(self) -> None:
        """Kill a running call's CLI and refuse new calls (server stop)."""
        with self._work:
            self._closed = True
            self._cancel_call()
            if self._view.status == CoachStatus.PENDING:
                self._show(DayPlanView())


def checked(answer: DayAnswer) -> DayPlanView:
    """The answer's commitments that meet a typed plan's rules, those that do not left out
    and counted; none left: the coach's sentence for an answer with no usable plan."""
    plans: list[Plan] = []
    refused: ValidationError | None = None
    for proposal in answer.proposals:
        try:
            plans.append(proposed_plan(proposal))
        except ValidationError as exc:
            refused = exc
    if not plans:
        return DayPlanView(CoachStatus.ERROR, error=unusable_proposal(refused))
    left_out = answer.left_out + len(answer.proposals) - len(plans)
    return DayPlanView(CoachStatus.READY, tuple(plans), left_out=left_out)


def entry_index(value: object, count: int) -> int:
    """An index into the proposal: a whole number (ValidationError), one it has (NotFound)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip()) if len(value.strip()) <= 6 else count
    else:
        raise ValidationError(WHICH, "index")
    if not 0 <= number < count:
        raise NotFound(NO_ENTRY)
    return number


def item_fields(plan: Plan) -> ItemFields:
    """A proposed commitment as a queue item holds it (its minutes whole, as validated)."""
    return ItemFields(plan.next_action, plan.success_condition, plan.timebox_secs // 60)


def local_hhmm(at: datetime) -> str:
    """A time of today as the coach is told it: local, HH:MM."""
    return at.astimezone().strftime("%H:%M")
