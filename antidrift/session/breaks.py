"""A break between commitments: taken from the closure (or by itself with `auto_break`),
ended early by hand or by its clock, which says "Break over". A part of the session like
Interruptions: each move is one unit of work over the shared Session. A break is a stage of
the transition table (core/session.py); it lives in the rhythm (core/rhythm.py), so a
restart keeps it, and the runtime state stays locked meanwhile, so no window is recorded or
judged."""

from __future__ import annotations

from datetime import datetime, timedelta

from antidrift.core.domain import Outcome
from antidrift.core.ports import Store
from antidrift.core.rhythm import Break, break_minutes, is_long
from antidrift.core.session import Move, Stage
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

BREAK_OVER = ("Break over · AntiDrift", "Plan the next commitment when you are ready.")


class Breaks:
    def __init__(self, work: UnitOfWork, session: Session, store: Store) -> None:
        self._work, self._s, self._store = work, session, store

    def take(self, minutes: object = None) -> Break:
        """POST /break: while locked (after /end), for `minutes` or the setting's length."""
        with self._work:
            self._s.check(Move.TAKE_BREAK)
            return self.begin(minutes)

    def begin(self, minutes: object = None) -> Break:
        """Under the unit of work, in the locked state: the break starts now."""
        s, settings = self._s, self._s.breaks
        now = s.now()
        turn = self._long(now, settings.long_every)
        length = break_minutes(minutes, settings.long_minutes if turn else settings.minutes)
        # The long one when it is its turn and it is that long: 5 minutes asked for on that
        # turn is a (short) break, as the title and the status line then say.
        long = turn and length >= settings.long_minutes
        rest = Break(now, now + timedelta(minutes=length), long)
        s.write(self._store, s.rhythm.but(rest=rest, rested=False))
        self._work.changed()
        return rest

    def _long(self, now: datetime, every: int) -> bool:
        """After the `every`-th met commitment of today (local day), and each multiple."""
        local = now.astimezone()
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        today = self._store.ended_since(midnight)
        met = sum(1 for c in today if c.outcome is Outcome.MET)
        return is_long(met, bool(today) and today[0].outcome is Outcome.MET, every)

    def end(self) -> None:
        """POST /break/end: the break ends now (409 when there is none)."""
        with self._work as work:
            s = self._s
            s.check(Move.END_BREAK)
            s.write(self._store, s.rhythm.but(rest=None))
            work.changed()

    def tick(self) -> None:
        """Once a second: a break whose time is up ends, with a chime and "Break over"."""
        with self._work as work:
            s = self._s
            rest = s.rhythm.rest
            if s.focus.stage is not Stage.BREAK or s.now() < rest.ends_at:
                return
            s.check(Move.BREAK_OVER)
            s.write(self._store, s.rhythm.but(rest=None, rested=True))
            work.then(lambda: s.announce(*BREAK_OVER))
            work.changed()
