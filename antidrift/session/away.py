"""Time away from the keyboard. The desktop's idle time (evidence/idle.py, asked by the
window sampler) says when input stopped; after the `away_after` minutes the running
commitment is away while its clock runs: no window is recorded as focus (the samples taken
since input stopped go, and an away mark ends the window before), and the guard waits (no
judge call, no nudge, no teeth) and says "away". Back: the absence joins the commitment's
`away_secs`, and the active view asks whether to count it as a pause (`credit`: the deadline
moves by it, paused_secs grows) or to keep counting (`dismiss`). A part of the session like
Interruptions: each move is one unit of work over the shared Session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from antidrift.core import timing
from antidrift.core.domain import IllegalTransitionError, RuntimeState, whole_secs
from antidrift.core.ports import Store
from antidrift.core.session import Move
from antidrift.drift.guard import DriftGuard
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

DEFAULT_AFTER = 3  # minutes without input (the away_after setting's default)
# Input within this of the absence's start is the idle clock's own rounding, not a return.
SLACK = timedelta(seconds=1)


@dataclass(frozen=True)
class AwayView:
    """The absence as /state and the active view show it."""

    away: bool = False
    since: datetime | None = None  # when input stopped, while away
    secs: int = 0  # the commitment's time away so far, an absence in progress included
    returned_secs: int = 0  # back from an absence this long, not yet answered (0: none)


class Away:
    """Whether the user is away now, since when, and the last absence still to answer."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Store,
        guard: DriftGuard,
        after_minutes: int = DEFAULT_AFTER,
    ) -> None:
        self._work, self._s, self._store, self._guard = work, session, store, guard
        self.after_minutes = after_minutes  # 0: off (Controller.retune changes it)

    # The absence is the aggregate's (core/session.py: a rollback puts it back).
    @property
    def _since(self) -> datetime | None:
        """Away since then (input stopped then)."""
        return self._s.focus.absence.since

    @_since.setter
    def _since(self, at: datetime | None) -> None:
        self._s.focus.absence = replace(self._s.focus.absence, since=at)

    @property
    def _back_at(self) -> datetime | None:
        """The last return (input came then)."""
        return self._s.focus.absence.back_at

    @_back_at.setter
    def _back_at(self, at: datetime | None) -> None:
        self._s.focus.absence = replace(self._s.focus.absence, back_at=at)

    @property
    def here(self) -> bool:
        """Under the unit of work: whether the user is away now."""
        return self._since is not None

    def idle(self, idle_secs: float, at: datetime) -> bool:
        """The desktop's idle time at `at` (seconds since the last input): True while the user
        is away, so the sampler looks at no window."""
        with self._work as work:
            s = self._s
            if s.state is not RuntimeState.ACTIVE or s.commitment.paused:
                return False
            last_input = at - timedelta(seconds=max(0.0, idle_secs))
            if self._since is not None:
                if not self.after_minutes:  # turned off while away: the absence ends now
                    last_input = at
                elif last_input <= self._since + SLACK:
                    return True
                self._back(min(max(last_input, self._since), at))
                work.changed()
                return False
            # Never away from before the commitment began or before the last return: each is
            # the user at the keyboard (an idle source may lag behind the input it missed).
            since = max(last_input, s.commitment.started_at, self._back_at or last_input)
            if not self.after_minutes or at - since < timedelta(minutes=self.after_minutes):
                return False
            s.check(Move.AWAY)
            self._store.mark_away(s.commitment.id, since)
            self._since = since
            self._guard.pause(at, away=True)
            work.changed()
            return True

    def _back(self, at: datetime) -> None:
        """Under the unit of work: input came at `at`; the absence is counted and asked about."""
        s = self._s
        span = whole_secs(self._since, at)
        back = replace(s.commitment, away_secs=s.commitment.away_secs + span)
        # The question is kept with the rhythm: a restart before it is answered still asks.
        s.write(self._store, s.rhythm.but(asked=(back.id, span) if span else None))
        self._store.save(RuntimeState.ACTIVE, back)
        s.commitment, self._since, self._back_at = back, None, at
        self._work.then(self._guard.resume(s.last_sample, at).run)

    def present(self, at: datetime) -> None:
        """Under the unit of work: the clock runs again at `at` (resume, undo, more time),
        maybe with no input here (a command from elsewhere): no absence counts from before."""
        self._back_at = at if self._back_at is None else max(self._back_at, at)

    def end(self, at: datetime, *, pausing: bool = False) -> None:
        """Under the unit of work, before the commitment is paused or stopped at `at`: an
        absence in progress ends there and is counted (its caller saves the commitment). A
        question not yet answered stays through a pause (Pause pressed on coming back is no
        answer to "You were away 12 min"); it goes with the commitment."""
        s = self._s
        if not pausing:
            s.write(self._store, s.rhythm.but(asked=None))
        self.present(at)  # what ended here was counted: never again from before it
        if self._since is None:
            return
        span = whole_secs(self._since, max(at, self._since))
        s.commitment = replace(s.commitment, away_secs=s.commitment.away_secs + span)
        self._since = None

    def credit(self) -> int:
        """Count the last absence as a pause: the deadline moves by it, paused_secs grows;
        the seconds it moved by."""
        with self._work as work:
            secs = self._question(Move.CREDIT_AWAY)
            s = self._s
            credited = timing.credited(s.commitment, secs)
            s.write(self._store, s.rhythm.but(asked=None))
            self._store.save(RuntimeState.ACTIVE, credited)
            s.commitment = credited
            work.changed()
        return secs

    def dismiss(self) -> None:
        """Keep counting: the absence stays time on the clock; the question goes."""
        with self._work as work:
            self._question(Move.DISMISS_AWAY)
            s = self._s
            s.write(self._store, s.rhythm.but(asked=None))
            work.changed()

    def _question(self, move: Move) -> int:
        """The seconds of the absence to answer (409 when there is none)."""
        s = self._s
        s.check(move)
        returned = s.rhythm.asked
        if returned is None or returned[0] != s.commitment.id:
            raise IllegalTransitionError(
                f"You can't {move.value} now: you have not been away since you last answered."
            )
        return returned[1]

    def view(self, now: datetime) -> AwayView:
        """Under the unit of work, while active."""
        c = self._s.commitment
        if c is None:
            return AwayView()
        returned = self._s.rhythm.asked
        asked = returned[1] if returned is not None and returned[0] == c.id else 0
        if self._since is None:
            return AwayView(False, None, c.away_secs, asked)
        return AwayView(True, self._since, c.away_secs + whole_secs(self._since, now), 0)
