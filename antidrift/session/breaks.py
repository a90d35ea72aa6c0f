"""A break between commitments: taken from the closure (or by itself with `auto_break`),
ended early by hand or by its clock, which says "Break over". A part of the session like
Interruptions: each move is one unit of work over the shared Session. A break is a stage of
the transition table (core/transitions.py); it lives in the rhythm (core/rhythm.py), so a
restart keeps it, and the runtime state stays locked meanwhile, so no window is recorded or
judged."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from antidrift.core.domain import Commitment, Outcome
from antidrift.core.ports import Repository
from antidrift.core.rhythm import Break, break_minutes, is_long
from antidrift.core.transitions import Move
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

BREAK_OVER = ("Break over · AntiDrift", "Plan the next commitment when you are ready.")


class Breaks:
    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Repository,
        left: Callable[[datetime], None] = lambda now: None,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._left = left  # a break ends Guard here too: its guard stops (following.py)

    def take(self, minutes: object = None) -> Break:
        """POST /break: while locked (after /end), for `minutes` or the setting's length."""
        with self._work as work:
            s = self._s
            s.check(Move.TAKE_BREAK)  # before the input
            rest = self.planner(minutes)(None)
            s.focus.take_break(rest)
            s.persist(self._store)
            self._left(s.now())
            work.changed()
        return rest

    def planner(self, minutes: object = None) -> Callable[[Commitment | None], Break]:
        """Under the unit of work: the break that would start now, once it is known which
        commitment (if any) ends with it — the long one comes after the `long_every`-th met
        commitment of today (local day), and each multiple. Today's history is read here, so
        the aggregate's move that takes the break stays pure."""
        s, settings = self._s, self._s.breaks
        now = s.now()
        local = now.astimezone()
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        today = self._store.ended_since(midnight)

        def rest(ending: Commitment | None) -> Break:
            ended = today
            if ending is not None and ending.ended_at >= midnight:
                ended = [ending, *today]
            met = sum(1 for c in ended if c.outcome is Outcome.MET)
            newest_met = bool(ended) and ended[0].outcome is Outcome.MET
            turn = is_long(met, newest_met, settings.long_every)
            length = break_minutes(minutes, settings.long_minutes if turn else settings.minutes)
            # The long one when it is its turn and it is that long: 5 minutes asked for on
            # that turn is a (short) break, as the title and the status line then say.
            long = turn and length >= settings.long_minutes
            return Break(now, now + timedelta(minutes=length), long)

        return rest

    def end(self) -> None:
        """POST /break/end: the break ends now (409 when there is none)."""
        with self._work as work:
            s = self._s
            s.focus.end_break()
            s.persist(self._store)
            work.changed()

    def tick(self) -> None:
        """Once a second: a break whose time is up ends, with a chime and "Break over"."""
        with self._work as work:
            s = self._s
            if s.focus.break_over(s.now()) is None:
                return
            s.persist(self._store)
            work.then(lambda: s.announce(*BREAK_OVER))
            work.changed()
