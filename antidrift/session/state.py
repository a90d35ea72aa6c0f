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
from antidrift.core.domain import Commitment, RuntimeState, WindowSample
from antidrift.core.ports import Persisted, Store
from antidrift.core.rhythm import BreakSettings, Rhythm
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


class Session:
    """The runtime state; read and written under the unit of work only."""

    def __init__(self, persisted: Persisted, clock: Clock, rhythm: Rhythm | None = None) -> None:
        # Within a run time comes from the monotonic clock: a wall-clock jump can neither
        # end a timebox early nor stretch it, nor make a duration negative.
        self.clock = SteadyClock(clock)
        self.state = persisted.state
        self.commitment: Commitment | None = persisted.commitment
        self.last_sample: WindowSample | None = persisted.samples[-1] if persisted.samples else None
        # The closure, the break, Undo Finish, the away question, "Break over": kept only
        # where the stored state has them.
        self.rhythm = _kept(rhythm or Rhythm(), self.state, self.commitment)
        self.breaks = BreakSettings()  # settings may change them (Controller.retune)
        self.watcher_running = False  # told by the window sampler (Controller.set_watcher)
        self.notifier: Notifier | None = None  # settings may change it (Controller.retune)
        if self.state is RuntimeState.ACTIVE and self.commitment is not None:
            # The time left is derived once from the stored wall-clock deadline, and never
            # more than the timebox (the wall clock may have gone back while we were down).
            c = self.commitment
            self.clock.resync(not_before=c.deadline - timedelta(seconds=c.total_secs))

    def now(self) -> datetime:
        """The session's time: steady while a timebox runs, the wall clock otherwise."""
        if self.state is not RuntimeState.ACTIVE:
            # Nothing is being timed: follow a corrected wall clock, but never to before the
            # commitment under review ended (an extension restarts from there at the earliest).
            c = self.commitment
            self.clock.resync(not_before=(c.ended_at or c.started_at) if c else None)
        return self.clock.now()

    def write(self, store: Store, rhythm: Rhythm) -> Rhythm:
        """Under the unit of work, before the move's own save: the rhythm it leaves, written
        (the caller takes it up once every save went through; a failed one changes nothing)."""
        if rhythm != self.rhythm:
            store.save_rhythm(rhythm.dump())
        return rhythm

    def announce(self, title: str, body: str) -> None:
        """A desktop notification, after the lock (the notifier runs off this thread)."""
        if self.notifier is not None:
            try:
                self.notifier.notify(title, body)
            except Exception:  # a notifier must never undo or stall a transition
                log.exception("notifier failed")


def _kept(rhythm: Rhythm, state: RuntimeState, commitment: Commitment | None) -> Rhythm:
    """What of a stored rhythm still holds for the stored state (the rhythm is written just
    before the state: a save that failed between the two leaves a rhythm that does not)."""
    locked = state is RuntimeState.LOCKED
    cid = commitment.id if commitment is not None else None
    finished = rhythm.finished
    if finished is not None and (state is not RuntimeState.REVIEW or finished.commitment_id != cid):
        finished = None
    asked = rhythm.asked
    if asked is not None and (state is not RuntimeState.ACTIVE or asked[0] != cid):
        asked = None
    return Rhythm(
        rhythm.closure if locked else None,
        rhythm.rest if locked else None,
        finished,
        rhythm.five_said if rhythm.five_said == cid else None,
        asked,
        rhythm.rested and locked,
    )
