"""Time away from the keyboard. The desktop's idle time (evidence/idle.py, asked by the
window sampler) says when input stopped; after the `away_after` minutes the running
commitment is away while its clock runs: no window is recorded as focus (the samples taken
since input stopped go, and an away mark ends the window before), and the guard waits (no
judge call, no nudge, no teeth) and says "away". Back: the absence joins the commitment's
`away_secs`, and the active view asks whether to count it as a pause (`credit`: the deadline
moves by it, paused_secs grows) or to keep counting (`dismiss`). A part of the session like
Interruptions: the absence is the aggregate's (core/session.py), and each move one unit of
work over it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from antidrift.core.domain import whole_secs
from antidrift.core.ports import Repository
from antidrift.core.session import CameBack, WentAway
from antidrift.core.transitions import Move
from antidrift.drift.guard import DriftGuard
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

DEFAULT_AFTER = 3  # minutes without input (the away_after setting's default)


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
        store: Repository,
        guard: DriftGuard,
        after_minutes: int = DEFAULT_AFTER,
    ) -> None:
        self._work, self._s, self._store, self._guard = work, session, store, guard
        self.after_minutes = after_minutes  # 0: off (Controller.retune changes it)

    @property
    def here(self) -> bool:
        """Under the unit of work: whether the user is away now."""
        return self._s.focus.away

    def idle(self, idle_secs: float, at: datetime) -> bool:
        """The desktop's idle time at `at` (seconds since the last input): True while the user
        is away, so the sampler looks at no window."""
        with self._work as work:
            s = self._s
            away, event = s.focus.idle(idle_secs, at, self.after_minutes)
            if isinstance(event, WentAway):  # the samples taken since input stopped go
                self._store.mark_away(event.commitment_id, event.since)
                self._guard.pause(at, away=True)
                work.changed()
            elif isinstance(event, CameBack):  # counted, and asked about
                s.persist(self._store)
                work.then(self._guard.resume(s.last_sample, event.at).run)
                work.changed()
            return away

    def credit(self) -> int:
        """Count the last absence as a pause: the deadline moves by it, paused_secs grows;
        the seconds it moved by."""
        return self._answer(Move.CREDIT_AWAY)

    def dismiss(self) -> None:
        """Keep counting: the absence stays time on the clock; the question goes."""
        self._answer(Move.DISMISS_AWAY)

    def _answer(self, move: Move) -> int:
        with self._work as work:
            secs = self._s.focus.answer_away(move)
            self._s.persist(self._store)
            work.changed()
        return secs

    def view(self, now: datetime) -> AwayView:
        """Under the unit of work, while active."""
        c, since = self._s.commitment, self._s.focus.absence.since
        if c is None:
            return AwayView()
        returned = self._s.rhythm.asked
        asked = returned[1] if returned is not None and returned[0] == c.id else 0
        if since is None:
            return AwayView(False, None, c.away_secs, asked)
        return AwayView(True, since, c.away_secs + whole_secs(since, now), 0)
