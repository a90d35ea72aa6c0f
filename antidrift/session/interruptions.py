"""Pause, resume, finish and its undo, discard, a changed next action: the handlers of the
moves that interrupt a running commitment. Each is one unit of work: the aggregate moves
(core/session.py, which asks the transition table), the runtime row is written, the drift
guard is told; the timing itself is pure (core/timing.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime

from antidrift.core.domain import (
    Commitment,
    IllegalTransitionError,
    RuntimeState,
    validate_next_action,
)
from antidrift.core.ports import Repository
from antidrift.core.transitions import Move
from antidrift.drift.guard import DriftGuard
from antidrift.session.reflecting import Reflections
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork


class Interruptions:
    """The handlers; what a Finish can be undone to is in the aggregate's rhythm (kept
    through a restart)."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Repository,
        guard: DriftGuard,
        reflections: Reflections,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._guard, self._reflections = guard, reflections

    def pause(self) -> Commitment:
        """The clock stops, the guard waits, no window is recorded (409 unless running)."""
        with self._work as work:
            s = self._s
            now = s.now()
            paused = s.focus.pause(now)
            s.persist(self._store)
            self._guard.pause(now)
            work.changed()
        return paused

    def resume(self) -> Commitment:
        """The clock runs again from where it stood: the deadline moves by the pause."""
        with self._work as work:
            s = self._s
            now = s.now()
            resumed = s.focus.resume(now)
            s.persist(self._store)
            work.then(self._guard.resume(s.last_sample, now).run)
            work.changed()
        return resumed

    def finish(self) -> None:
        """To review by hand (paused or not); it can be undone for a while (UNDO_FINISH)."""
        with self._work:
            s = self._s
            self.stopped(s.focus.finish(s.now()))

    def stopped(self, stopped: Commitment) -> None:
        """Under the unit of work, once the aggregate moved to review: written, the guard's
        figures kept."""
        self._s.persist(self._store)
        self._guard.stop(stopped.ended_at)
        self._work.changed()

    def discard(self) -> Commitment:
        """Drop the running commitment (paused or not): to the history as discarded, neither
        met nor missed (the figures never count it), and back to locked with no closure."""
        with self._work as work:
            s = self._s
            gone = s.focus.discard(s.now())
            s.persist(self._store, gone)
            if gone.day_item_id:  # neither met nor missed: back in the day's queue
                self._store.unstart_day_item(gone.day_item_id)
            self._guard.stop(gone.ended_at)
            work.then(self._reflections.stop)
            work.changed()
        return gone

    def change_next_action(self, next_action: object) -> Commitment:
        """While it runs (paused or not): the next action reads as the user now puts it, the
        history keeps the new one, and the guard asks the judge again (guard.replan)."""
        with self._work as work:
            s = self._s
            s.check(Move.EDIT)  # the state first, then the input
            changed = s.focus.edit(validate_next_action(next_action))
            if changed is None:
                return s.commitment  # nothing changed: the verdicts stand
            self._store.forget_verdicts(changed.id)  # judged against the old words
            s.persist(self._store)
            work.changed()
            work.then(self._guard.replan(changed, s.last_sample, s.now()).run)
        return changed

    def undo_until(self) -> datetime | None:
        """Under the unit of work: until when the last Finish can be undone (None: it cannot)."""
        return self._s.focus.undo_until(self._s.now())

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
                s.rhythm, s.focus.recorded = s.rhythm.but(finished=None), commitment_id
                s.persist(self._store)
                work.changed()  # the pages lose their Undo button
        try:
            yield
        except BaseException:
            if held is not None:
                with self._work as work:
                    s = self._s
                    if s.rhythm.finished is None and s.state is RuntimeState.REVIEW:
                        s.rhythm, s.focus.recorded = s.rhythm.but(finished=held), None
                        s.persist(self._store)
                        work.changed()
            raise

    @contextmanager
    def writing_back(self, commitment_id: str, action: str) -> Iterator[None]:
        """While a commitment's outcome goes out to its task (POST /tasks/writeback): the one
        write-back it gets is claimed first, in the store, so a second press (another tab, a
        reload, the history) is refused (409) and never writes twice; one that fails (nothing
        written) is given back. A crash mid-write keeps the claim: once, never twice."""
        with self._work:
            if not self._store.claim_write_back(commitment_id, action):
                raise IllegalTransitionError(
                    "This commitment is already recorded in your task list: it is written"
                    " there once."
                )
        try:
            yield
        except BaseException:
            with self._work:
                self._store.release_write_back(commitment_id)
            raise
        with self._work:
            c = self._s.commitment  # the review's own copy shows it as recorded after a reload
            if c is not None and c.id == commitment_id:
                self._s.commitment = replace(c, written_back=action)

    def undo_finish(self) -> Commitment:
        """Back to the running commitment as it was before Finish: the same deadline (and a
        pause in progress still paused), the guard watching again with its verdicts."""
        with self._work as work:
            s = self._s
            now = s.now()
            before = s.focus.undo_finish(now)
            s.persist(self._store)
            work.then(self._reflections.stop)
            work.then(self._guard.begin(before, s.last_sample, since=s.now()).run)
            work.changed()
        return before
