"""What the session's parts share under the unit of work: the runtime state (state, the
commitment, the last window sample), its time, its voice; and `Tuning`, the parts the
settings choose, which `Controller.retune` hands to every part that uses one."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from antidrift.ai import Coach, Judge
from antidrift.ai.reflect import Reflector
from antidrift.core.clock import Clock, SteadyClock
from antidrift.core.domain import Commitment, RuntimeState
from antidrift.core.ports import Persisted, Repository
from antidrift.core.rhythm import BreakSettings, Rhythm
from antidrift.core.session import FocusSession
from antidrift.core.transitions import Move, Stage
from antidrift.drift.policy import DriftSettings
from antidrift.notify import Notifier

log = logging.getLogger("antidrift.session")


@dataclass(frozen=True)
class Tuning:
    """The settings-dependent parts of a session: built together from one Settings (the
    composition root's `tuning`), applied together (`Controller.retune`)."""

    coach: Coach | None = None
    unavailable: str = "coach unavailable"  # what Sharpen and Reflect say without a coach
    reflector: Reflector | None = None
    judge: Judge | None = None
    drift: DriftSettings | None = None
    exclude: re.Pattern[str] | None = None  # private window titles
    notifier: Notifier | None = None
    breaks: BreakSettings = BreakSettings()
    away_after: int = 3  # minutes without input until the user is away (0: never)
    # Guard here too's timing (grace, cooldown, the hourly cap), with a judge or without one
    # (None: drift's, else the defaults).
    follow_drift: DriftSettings | None = None


def _field(name: str) -> property:
    """One of the aggregate's fields, read and set through the Session."""
    return property(
        lambda self: getattr(self.focus, name),
        lambda self, value: setattr(self.focus, name, value),
    )


class Session:
    """The aggregate (core/session.py) with its time and its voice; read and written under
    the unit of work only, which keeps it (a rollback puts its state back)."""

    def __init__(self, persisted: Persisted, clock: Clock, rhythm: Rhythm | None = None) -> None:
        # Within a run time comes from the monotonic clock: a wall-clock jump can neither
        # end a timebox early nor stretch it, nor make a duration negative.
        self.clock = SteadyClock(clock)
        self.focus = FocusSession(
            persisted.state,
            persisted.commitment,
            persisted.samples[-1] if persisted.samples else None,
            rhythm or Rhythm(),
        )
        # What the runtime row holds: (state and commitment, rhythm, draft), so a move writes
        # only what it changed.
        self._stored: tuple = ((self.state, self.commitment), self.rhythm, None)
        self.breaks = BreakSettings()  # settings may change them (Controller.retune)
        self.notifier: Notifier | None = None  # settings may change it (Controller.retune)
        if self.state is RuntimeState.ACTIVE and self.commitment is not None:
            # The time left is derived once from the stored wall-clock deadline, and never
            # more than the timebox (the wall clock may have gone back while we were down).
            c = self.commitment
            self.clock.resync(not_before=c.deadline - timedelta(seconds=c.total_secs))

    # The aggregate's fields, as the handlers read and set them.
    state = _field("state")
    commitment = _field("commitment")
    last_sample = _field("last_sample")
    rhythm = _field("rhythm")
    watcher_running = _field("watcher_running")

    def check(self, move: Move) -> Stage:
        """The table's word on `move` from here (409 when it does not list it)."""
        return self.focus.check(move)

    def memento(self) -> tuple[FocusSession, tuple]:
        return self.focus.memento(), self._stored

    def restore(self, memento: object) -> None:
        focus, self._stored = memento  # type: ignore[misc]
        self.focus.restore(focus)

    def take_up(self, draft: object) -> None:
        """At construction: the draft a restart in planning resumes with, as stored."""
        self.focus.draft = draft
        self._stored = (*self._stored[:2], draft)

    def now(self) -> datetime:
        """The session's time: steady while a timebox runs, the wall clock otherwise."""
        if self.state is not RuntimeState.ACTIVE:
            # Nothing is being timed: follow a corrected wall clock, but never to before the
            # commitment under review ended (an extension restarts from there at the earliest).
            c = self.commitment
            self.clock.resync(not_before=(c.ended_at or c.started_at) if c else None)
        return self.clock.now()

    def persist(self, store: Repository, ended: Commitment | None = None) -> None:
        """Under the unit of work, after a move: what of the runtime row the aggregate has
        changed since it was last written — the state with its commitment (`ended`: the one
        that just left it, for the history), the rhythm, the draft — in the change's one
        transaction."""
        f = self.focus
        row, rhythm, draft = (f.state, f.commitment), f.rhythm, f.draft
        if ended is not None or row != self._stored[0]:
            store.save(f.state, ended or f.commitment)
        if rhythm != self._stored[1]:
            store.save_rhythm(rhythm.dump())
        if draft != self._stored[2]:
            store.save_draft(draft.to_json() if draft is not None else None)
        self._stored = (row, rhythm, draft)

    def announce(self, title: str, body: str) -> None:
        """A desktop notification, after the commit (the notifier runs off this thread)."""
        if self.notifier is not None:
            try:
                self.notifier.notify(title, body)
            except Exception:  # a notifier must never undo or stall a transition
                log.exception("notifier failed")
