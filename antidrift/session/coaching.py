"""The planning view's Sharpen button: one coach call at a time, off the request thread, its
proposal validated like a typed plan; the coach's CLI kept warm while the user plans.

Shaped like `Reflections`: the composition root builds it over the session's unit of work and
Session; methods marked "under the lock" are called inside that unit of work.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from antidrift.ai import NO_PLAN, Cancelled, CancelScope, Coach, CoachError, Proposal
from antidrift.core import insights
from antidrift.core.domain import (
    NotPlanning,
    Plan,
    RuntimeState,
    ValidationError,
    validate_intent,
    validate_plan,
)
from antidrift.core.errors import Error
from antidrift.core.plaintext import without_controls
from antidrift.core.ports import Repository
from antidrift.core.transitions import Move
from antidrift.session.drafts import Draft, Drafts
from antidrift.session.snapshot import CoachStatus, CoachView
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

log = logging.getLogger("antidrift.coaching")


@dataclass
class CoachCall:
    """One Sharpen in flight: its generation names the proposal, its scope kills the CLI."""

    generation: int
    scope: CancelScope
    asked: Draft  # the draft as Sharpen left it: unchanged when the proposal lands, the user
    # typed nothing meanwhile, and the page's focus can go on to Start


class Coaching:
    """Owns the coach's state (ephemeral by design) and the executor its calls run on."""

    def __init__(
        self,
        coach: Coach | None,
        store: Repository,
        work: UnitOfWork,
        session: Session,
        unavailable: str,
        *,
        workers: int = 2,
        drafts: Drafts,
        free_minutes: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.coach = coach
        self._free_minutes = free_minutes  # before the next calendar event, off the lock
        self._drafts = drafts  # the plan fields a proposal fills, or leaves to the user
        self._store = store
        self._work, self._s = work, session
        self.unavailable = unavailable  # settings may change it (Controller.retune)
        self._view = CoachView()
        self._call: CoachCall | None = None
        self._generation = 0
        # Proposal ids must not repeat across restarts: a page that applied "boot-3" before a
        # restart must still take the new process's third proposal.
        self._boot = secrets.token_hex(4)
        # Threads start with the first call, not here. The review's Reflect button shares it.
        self.executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="antidrift-coach"
        )
        self._closed = False

    def view(self) -> CoachView:
        """Under the lock: the coach as the planning view shows it."""
        return self._view

    def memento(self) -> tuple:
        return self._view, self._call, self._generation

    def restore(self, memento: object) -> None:
        """After a rollback; a call the change stopped is gone (Sharpen asks again)."""
        self._view, self._call, self._generation = memento  # type: ignore[misc]
        if self._call is not None and self._call.scope.cancelled:
            self._call, self._view = None, CoachView()

    def request(self, intent: object) -> None:
        """Sharpen: start a coach call for the intent; its result arrives through the
        listeners. Only while planning (NotPlanning: 400)."""
        with self._work:
            if not self._s.focus.allows(Move.SHARPEN):
                raise NotPlanning()  # an older contract: 400, not 409
            text = validate_intent(intent)
            call = self._start(self._s.now(), text)
        if call is not None:  # after the listeners: the pages show it pending first
            self._submit(call, text)

    def cancel(self) -> None:
        """Stop a running Sharpen: its CLI is killed and the coach goes back to idle."""
        with self._work as work:
            self._s.check(Move.CANCEL_COACH)
            self.reset()
            work.changed()

    def use(self, name: object) -> Draft:
        """POST /coach/use: the ready proposal's value goes into one field the user edited."""
        with self._work:
            return self._drafts.use(name, self._view.proposal)

    def _start(self, now: datetime, intent: str = "") -> CoachCall | None:
        """Under the lock: mark a call pending (a running one is cancelled); None when there
        is no coach to ask (the view then says so). The fields the user edited stay theirs."""
        self._drafts.sharpened(intent)
        self._cancel_call()
        if self.coach is None or self._closed:
            self._view = CoachView(CoachStatus.ERROR, error=self.unavailable)
            self._work.changed()
            return None
        self._generation += 1
        call = CoachCall(self._generation, CancelScope(), self._drafts.draft)
        self._call = call
        self._view = CoachView(CoachStatus.PENDING, pending_since=now)
        self._work.changed()
        return call

    def _submit(self, call: CoachCall, intent: str) -> None:
        """After the lock: ask the coach on the executor; the proposal lands if still wanted."""
        coach = self.coach
        if coach is None:
            return
        try:
            self.executor.submit(self._run, call, intent, coach)
        except RuntimeError:  # the executor is shutting down with the server
            call.scope.cancel()

    def _run(self, call: CoachCall, intent: str, coach: Coach) -> None:
        if call.scope.cancelled:
            return  # superseded while queued: a stale call never starts its CLI
        try:
            proposal = coach.coach(
                intent,
                scope=call.scope,
                track_record=self._track_record(),
                free_minutes=self._free_minutes(),
            )
            plan = proposed_plan(proposal)
            view = CoachView(CoachStatus.READY, plan, proposal_id=f"{self._boot}-{call.generation}")
        except Cancelled:
            return
        except CoachError as exc:
            view = CoachView(CoachStatus.ERROR, error=str(exc))
        except ValidationError as exc:
            view = CoachView(CoachStatus.ERROR, error=unusable_proposal(exc))
        except Exception:
            log.exception("coach call failed unexpectedly")
            view = CoachView(CoachStatus.ERROR, error="The coach failed unexpectedly; see the log.")
        try:
            self._land(call, view)
        except Error as exc:  # the draft could not be kept (a full disk): nothing changed
            self._land(call, CoachView(CoachStatus.ERROR, error=exc.for_page))

    def _land(self, call: CoachCall, view: CoachView) -> None:
        """The call's result, as one change: the proposal fills the draft's open fields."""
        with self._work as work:
            if call is not self._call or self._s.state is not RuntimeState.PLANNING:
                return  # superseded, cancelled, or the user left planning: discard silently
            if view.proposal is not None:
                untouched = self._drafts.draft == call.asked
                kept = self._drafts.proposed(view.proposal)
                view = CoachView(
                    view.status, view.proposal, view.proposal_id, kept=kept, to_start=untouched
                )
            self._view = view
            self._call = None
            work.changed()

    def _track_record(self) -> list[insights.TrackRecordLine]:
        """The user's recent plans for the coach (none before three have ended); a store that
        cannot be read costs the coach its calibration, never the call."""
        try:
            return insights.track_record(self._store.ended_figures(insights.TRACK_RECORD_LINES))
        except Exception:
            log.exception("could not read the track record for the coach")
            return []

    def reset(self) -> None:
        """Under the lock: cancel a running call and forget its result (back to idle)."""
        self._cancel_call()
        self._generation += 1
        self._view = CoachView()

    def _cancel_call(self) -> None:
        """Under the unit of work: the running call no longer counts; its CLI is killed (its
        whole process group) once the change is committed, and lives on if it is not."""
        if self._call is not None:
            self._work.then(self._call.scope.cancel)
            self._call = None

    def keep_warm(self, on: bool) -> None:
        """Under the lock, so on/off reach the coach in the order of the transitions. Starting
        a process costs about a millisecond; its start-up runs while the user types."""
        keep = getattr(self.coach, "keep_warm", None)
        if keep is not None and not (on and self._closed):
            try:
                keep(on)
            except Exception:
                log.exception("could not keep the coach warm")

    def shutdown(self) -> None:
        """Kill a running coach CLI and the warm one, and refuse new calls (server stop)."""
        with self._work:
            self._closed = True
            self.keep_warm(False)
            self._cancel_call()
            if self._view.status == CoachStatus.PENDING:
                self._view = CoachView()
        self.executor.shutdown(wait=False, cancel_futures=True)


def proposed_plan(proposal: Proposal) -> Plan:
    """The one plan validator: what the coach proposes meets a typed plan's rules, once the
    control characters a model may emit are taken out (never stored, pushed or printed)."""
    return validate_plan(
        without_controls(proposal.next_action),
        without_controls(proposal.success_condition),
        proposal.timebox_minutes,
    )


def unusable_proposal(exc: ValidationError | None = None) -> str:
    """The coach page's sentence for a proposal the domain refused: the coach's words, not
    the form's ("Next action is required." is about what the user typed)."""
    return NO_PLAN[:1].upper() + NO_PLAN[1:] + "."
