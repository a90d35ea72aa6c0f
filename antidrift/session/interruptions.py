"""Pause, resume, finish and its undo: the moves that interrupt a running commitment, and the
stop into review that Finish and a timebox's end share. A part of the session like Coaching:
each move is one unit of work over the shared Session; the timing itself is pure
(timing.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta

from antidrift.core import timing
from antidrift.core.domain import (
    Commitment,
    IllegalTransitionError,
    Outcome,
    RuntimeState,
    describe,
    validate_next_action,
)
from antidrift.core.ports import Store
from antidrift.core.rhythm import Finished
from antidrift.core.session import Move
from antidrift.drift.guard import DriftGuard
from antidrift.session.away import Away
from antidrift.session.reflecting import Reflections
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

log = logging.getLogger("antidrift.session")

UNDO_FINISH = timedelta(seconds=30)  # how long a manual Finish can be taken back


class Interruptions:
    """Moves the shared Session's commitment; what a Finish can be undone to is in its
    rhythm (kept through a restart)."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Store,
        guard: DriftGuard,
        reflections: Reflections,
        away: Away,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._guard, self._reflections = guard, reflections
        self._away = away  # an absence ends where the commitment pauses or stops

    def pause(self) -> Commitment:
        """The clock stops, the guard waits, no window is recorded (409 unless running)."""
        with self._work as work:
            s = self._s
            s.check(Move.PAUSE)
            if s.commitment.paused:
                raise IllegalTransitionError("You can't pause now: the commitment is paused.")
            now = s.now()
            self._away.end(now, pausing=True)  # an absence in progress ends (counted) here
            paused = timing.paused(s.commitment, now)
            self._store.save(RuntimeState.ACTIVE, paused)
            s.commitment = paused
            self._guard.pause(now)
            work.changed()
        return paused

    def resume(self) -> Commitment:
        """The clock runs again from where it stood: the deadline moves by the pause."""
        with self._work as work:
            s = self._s
            s.check(Move.RESUME)
            if not s.commitment.paused:
                raise IllegalTransitionError("You can't resume now: the commitment is not paused.")
            now = s.now()
            resumed = timing.resumed(s.commitment, now)
            self._store.save(RuntimeState.ACTIVE, resumed)
            s.commitment = resumed
            self._away.present(now)  # the pause was no absence
            work.then(self._guard.resume(s.last_sample, now).run)
            work.changed()
        return resumed

    def finish(self) -> None:
        """To review by hand (paused or not); it can be undone for UNDO_FINISH."""
        with self._work:
            s = self._s
            s.check(Move.FINISH)
            now = s.now()
            self._away.end(now)  # first: Undo Finish comes back with the absence counted
            before = s.commitment
            s.write(self._store, s.rhythm.but(finished=Finished.of(before, now)))
            s.commitment = timing.resumed(before, now)  # finished while paused: it ends
            self.stop(now)

    def discard(self) -> Commitment:
        """Drop the running commitment (paused or not): to the history as discarded, neither
        met nor missed (the figures never count it), and back to locked with no closure."""
        with self._work as work:
            s = self._s
            s.check(Move.DISCARD)
            now = s.now()
            self._away.end(now)  # an absence under way ends with it
            stopped = timing.resumed(s.commitment, now).stopped(now)
            gone = stopped.ended(stopped.ended_at, Outcome.DISCARDED, "")
            self._store.save(RuntimeState.LOCKED, gone)
            self._guard.stop(gone.ended_at)
            work.then(self._reflections.cancel)
            s.state, s.commitment, s.last_sample = RuntimeState.LOCKED, None, None
            work.changed()
        return gone

    def change_next_action(self, next_action: object) -> Commitment:
        """While it runs (paused or not): the next action reads as the user now puts it, the
        history keeps the new one, and the guard asks the judge again (guard.replan)."""
        with self._work as work:
            s = self._s
            s.check(Move.EDIT)
            text = validate_next_action(next_action)
            if text == s.commitment.next_action:
                return s.commitment  # nothing changed: the verdicts stand
            changed = replace(s.commitment, next_action=text)
            self._store.forget_verdicts(changed.id)  # judged against the old words
            self._store.save(RuntimeState.ACTIVE, changed)
            s.commitment = changed
            work.changed()
            work.then(self._guard.replan(changed, s.last_sample, s.now()).run)
        return changed

    def stop(self, at: datetime) -> None:
        """Under the unit of work: the running commitment stops at `at` and goes to review."""
        s = self._s
        self._away.end(at)  # away when the time ran out: the review says how much
        stopped = s.commitment.stopped(at)
        self._store.save(RuntimeState.REVIEW, stopped)
        s.state, s.commitment = RuntimeState.REVIEW, stopped
        self._guard.stop(stopped.ended_at)
        self._work.changed()

    def undo_until(self) -> datetime | None:
        """Under the unit of work: until when the last Finish can be undone (None: it cannot)."""
        s = self._s
        done = s.rhythm.finished
        if done is None or s.state is not RuntimeState.REVIEW:
            return None
        if done.commitment_id != s.commitment.id or s.now() > done.at + UNDO_FINISH:
            return None
        return done.at + UNDO_FINISH

    @contextmanager
    def finish_standing(self, commitment_id: str) -> Iterator[None]:
        """While its outcome goes out to a task tool (a task ticked done, a note written),
        which an Undo here could not take back: Finish stands — for good once the block ends
        well; the Undo comes back if it fails (nothing was written). Refused (409) when Undo
        Finish has already set that commitment running again."""
        with self._work as work:
            s = self._s
            if s.state is RuntimeState.ACTIVE and s.commitment.id == commitment_id:
                raise IllegalTransitionError(
                    "That commitment is running again (Finish was undone): nothing was"
                    " recorded in your task list. Finish it, then record it."
                )
            held = s.rhythm.finished
            if held is None or held.commitment_id != commitment_id:
                held = None
            else:
                s.write(self._store, s.rhythm.but(finished=None))
                s.focus.recorded = commitment_id
                work.changed()  # the pages lose their Undo button
        try:
            yield
        except BaseException:
            if held is not None:
                with self._work as work:
                    s = self._s
                    if s.rhythm.finished is None and s.state is RuntimeState.REVIEW:
                        s.write(self._store, s.rhythm.but(finished=held))
                        s.focus.recorded = None
                        work.changed()
            raise

    def undo_finish(self) -> Commitment:
        """Back to the running commitment as it was before Finish: the same deadline (and a
        pause in progress still paused), the guard watching again with its verdicts."""
        with self._work as work:
            s = self._s
            if self.undo_until() is None:
                if s.state is RuntimeState.REVIEW and s.focus.recorded == s.commitment.id:
                    raise IllegalTransitionError(
                        "You can't undo Finish now: its outcome is in your task list already"
                        " (ticked or noted there), and AntiDrift can't take that back."
                    )
                raise IllegalTransitionError(
                    "You can't undo Finish now: it can be undone for"
                    f" {int(UNDO_FINISH.total_seconds())} seconds after you press it,"
                    f" once ({describe(s.state)})."
                )
            before = s.rhythm.finished.before(s.commitment)
            s.write(self._store, s.rhythm.but(finished=None))
            self._store.save(RuntimeState.ACTIVE, before)
            work.then(self._reflections.cancel)
            s.state, s.commitment = RuntimeState.ACTIVE, before
            self._away.present(s.now())  # nor was the review
            work.then(self._guard.begin(before, s.last_sample, since=s.now()).run)
            work.changed()
        return before
