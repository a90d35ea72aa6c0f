"""Pause, resume, finish and its undo: the moves that interrupt a running commitment. Part of
the controller's state machine (session.Controller inherits them): each runs under its lock
and persists first, as every transition does; the timing itself is pure (timing.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from antidrift.core import timing
from antidrift.core.domain import (
    Commitment,
    IllegalTransitionError,
    RuntimeState,
    describe,
    require,
)

UNDO_FINISH = timedelta(seconds=30)  # how long a manual Finish can be taken back


class Interruptions:
    """Mixin of session.Controller: uses its lock, store, state, commitment and guard."""

    _finished: tuple[Commitment, datetime] | None = None  # before Finish, and when
    _recorded: str | None = None  # the commitment whose outcome went to a task tool

    def pause(self) -> Commitment:
        """The clock stops, the guard waits, no window is recorded (409 unless running)."""
        with self._lock:
            require(self._state, RuntimeState.ACTIVE, action="pause")
            if self._commitment.paused:
                raise IllegalTransitionError("You can't pause now: the commitment is paused.")
            now = self._now()
            paused = timing.paused(self._commitment, now)
            self._store.save(RuntimeState.ACTIVE, paused)
            self._commitment = paused
            self._guard.pause(now)
            self._changed()
        self._notify()
        return paused

    def resume(self) -> Commitment:
        """The clock runs again from where it stood: the deadline moves by the pause."""
        with self._lock:
            if self._state is not RuntimeState.ACTIVE or not self._commitment.paused:
                where = describe(self._state)
                if self._state is RuntimeState.ACTIVE:
                    where = "the commitment is not paused"
                raise IllegalTransitionError(f"You can't resume now: {where}.")
            now = self._now()
            resumed = timing.resumed(self._commitment, now)
            self._store.save(RuntimeState.ACTIVE, resumed)
            self._commitment = resumed
            after = self._guard.resume(self._last_sample, now)
            self._changed()
        after.run()
        self._notify()
        return resumed

    def finish(self) -> None:
        """To review by hand (paused or not); it can be undone for UNDO_FINISH."""
        with self._lock:
            require(self._state, RuntimeState.ACTIVE, action="finish")
            before, now = self._commitment, self._now()
            self._commitment = timing.resumed(before, now)  # finished while paused: it ends
            self._to_review(now)
            self._finished = (before, now)
        self._notify()

    def undo_until(self) -> datetime | None:
        """Under the lock: until when the last Finish can be undone (None: it cannot)."""
        if self._finished is None or self._state is not RuntimeState.REVIEW:
            return None
        before, at = self._finished
        if before.id != self._commitment.id or self._now() > at + UNDO_FINISH:
            return None
        return at + UNDO_FINISH

    @contextmanager
    def finish_standing(self, commitment_id: str) -> Iterator[None]:
        """While its outcome goes out to a task tool (a task ticked done, a note written),
        which an Undo here could not take back: Finish stands — for good once the block ends
        well; the Undo comes back if it fails (nothing was written). Refused (409) when Undo
        Finish has already set that commitment running again."""
        with self._lock:
            if self._state is RuntimeState.ACTIVE and self._commitment.id == commitment_id:
                raise IllegalTransitionError(
                    "That commitment is running again (Finish was undone): nothing was"
                    " recorded in your task list. Finish it, then record it."
                )
            held = self._finished
            if held is None or held[0].id != commitment_id:
                held = None
            else:
                self._finished, self._recorded = None, commitment_id
                self._changed()
        if held is not None:
            self._notify()  # the pages lose their Undo button
        try:
            yield
        except BaseException:
            if held is not None:
                with self._lock:
                    if self._finished is None and self._state is RuntimeState.REVIEW:
                        self._finished, self._recorded = held, None
                        self._changed()
                self._notify()
            raise

    def undo_finish(self) -> Commitment:
        """Back to the running commitment as it was before Finish: the same deadline (and a
        pause in progress still paused), the guard watching again with its verdicts."""
        with self._lock:
            if self.undo_until() is None:
                if self._state is RuntimeState.REVIEW and self._recorded == self._commitment.id:
                    raise IllegalTransitionError(
                        "You can't undo Finish now: its outcome is in your task list already"
                        " (ticked or noted there), and AntiDrift can't take that back."
                    )
                raise IllegalTransitionError(
                    "You can't undo Finish now: it can be undone for"
                    f" {int(UNDO_FINISH.total_seconds())} seconds after you press it,"
                    f" once ({describe(self._state)})."
                )
            before = self._finished[0]
            self._store.save(RuntimeState.ACTIVE, before)
            self._finished = None
            self.reflections.cancel()
            self._state, self._commitment = RuntimeState.ACTIVE, before
            after = self._guard.begin(before, self._last_sample, since=self._now())
            self._changed()
        after.run()
        self._notify()
        return before
