"""The session's parts put together: one unit of work, one Session, each part over them,
restored from the store (the composition root, bootstrap, calls it; so do the tests)."""

from __future__ import annotations

from datetime import datetime

from antidrift.calendar import Calendar
from antidrift.core.clock import Clock
from antidrift.core.ports import Store
from antidrift.drift.guard import DriftGuard, Enforcer
from antidrift.drift.rules import StandingRules
from antidrift.session.coaching import Coaching
from antidrift.session.controller import Controller
from antidrift.session.corrections import Corrections
from antidrift.session.drafts import Drafts
from antidrift.session.interruptions import Interruptions
from antidrift.session.reflecting import Reflections
from antidrift.session.state import Session, Tuning
from antidrift.session.unit_of_work import UnitOfWork


def build_controller(
    store: Store,
    clock: Clock,
    parts: Tuning | None = None,
    *,
    enforcer: Enforcer | None = None,
    coach_workers: int = 2,
    calendar: Calendar | None = None,
) -> Controller:
    """The session: its parts over one unit of work and one Session, restored from the store.
    Nothing starts here (`Controller.start` takes the stored state up)."""
    parts = parts or Tuning()
    work, session = UnitOfWork(), Session(store.load(), clock)
    session.notifier = parts.notifier
    drafts = Drafts(store, work, session)  # what the user types while planning
    drafts.resume()
    # The planning view's Sharpen; its executor is the review's Reflect's too.
    coaching = Coaching(
        parts.coach,
        store,
        work,
        session,
        parts.unavailable,
        workers=coach_workers,
        drafts=drafts,
        # The minutes before the next calendar event (the coach plans to them), asked from
        # the coach's thread: the session's time is read in a unit of work of its own.
        free_minutes=lambda: calendar.free_minutes(_now(work, session)) if calendar else None,
    )
    reflections = Reflections(
        parts.reflector, store, coaching.executor, work, session, parts.unavailable
    )
    # The drift guard: judge calls on its own executor, landing through the unit of work.
    guard = DriftGuard(
        judge=parts.judge,
        settings=parts.drift,
        store=store,
        clock=session.clock,
        work=work,
        announce=session.announce,
        exclude=parts.exclude,
        enforcer=enforcer,
        busy=calendar.busy if calendar is not None else None,  # stands down during an event
    )
    return Controller(
        work,
        session,
        store,
        guard=guard,
        drafts=drafts,
        coaching=coaching,
        reflections=reflections,
        corrections=Corrections(store, work),  # the history corrected after the fact
        rules=StandingRules(store, work, guard),  # the running commitment's guard follows
        interruptions=Interruptions(work, session, store, guard, reflections),
        calendar=calendar,
    )


def _now(work: UnitOfWork, session: Session) -> datetime:
    with work:
        return session.now()
