"""The review's Reflect button: one coach call at a time, off the request thread, for the
commitment under review; its result is discarded once that commitment has left review."""

from __future__ import annotations

import logging
from concurrent.futures import Executor

from antidrift.ai import Cancelled, CoachError
from antidrift.ai.reflect import Reflector, ReviewFacts
from antidrift.core.domain import Commitment
from antidrift.core.insights import WindowTime
from antidrift.core.minutes import whole_minutes
from antidrift.core.ports import Repository
from antidrift.core.transitions import Move
from antidrift.process import CancelScope
from antidrift.session.snapshot import ReflectionStatus, ReflectionView
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

log = logging.getLogger("antidrift.reflecting")


class Reflections:
    """Owns the reflection state, over the session's unit of work and Session; methods
    marked "under the lock" are called inside that unit of work."""

    def __init__(
        self,
        reflector: Reflector | None,
        store: Repository,
        executor: Executor,
        work: UnitOfWork,
        session: Session,
        unavailable: str,
    ) -> None:
        self.reflector = reflector  # settings change both (Controller.retune)
        self.unavailable = unavailable
        self._store = store
        self._executor = executor
        self._work, self._s = work, session
        self._view = ReflectionView()
        self._scope: CancelScope | None = None

    @property
    def available(self) -> bool:
        return self.reflector is not None

    def view(self, commitment_id: str) -> ReflectionView:
        """Under the lock: the reflection of this commitment (idle if it has none yet)."""
        if self._view.commitment_id != commitment_id:
            return ReflectionView(commitment_id)
        return self._view

    def request(self) -> None:
        """Two sentences from the coach on the commitment under review (the Reflect button)."""
        with self._work:
            self._s.check(Move.REFLECT)
            commitment, now = self._s.commitment, self._s.now()
            scope = self._start(commitment.id)
        if scope is None:
            return
        focus = self._store.window_time(commitment.id, commitment.ended_at or now, 12)
        drift = self._store.drift_summaries([commitment.id]).get(commitment.id)
        self._run(commitment.id, review_facts(commitment, focus, drift), scope)

    def _start(self, commitment_id: str) -> CancelScope | None:
        """Under the lock: mark a call pending (a running one is cancelled); None when there
        is no coach to ask (the view then says so)."""
        self.cancel()
        if self.reflector is None:
            self._view = ReflectionView(
                commitment_id, ReflectionStatus.ERROR, error=self.unavailable
            )
            self._work.changed()
            return None
        self._scope = CancelScope()
        self._view = ReflectionView(commitment_id, ReflectionStatus.PENDING)
        self._work.changed()
        return self._scope

    def _run(self, commitment_id: str, facts: ReviewFacts, scope: CancelScope) -> None:
        """After the lock: ask the coach on the executor; the result lands if still wanted."""
        reflector = self.reflector
        if reflector is None:
            return

        def call() -> None:
            if scope.cancelled:
                return
            try:
                view = ReflectionView(
                    commitment_id,
                    ReflectionStatus.READY,
                    text=reflector.reflect(facts, scope=scope),
                )
            except Cancelled:
                return
            except CoachError as exc:
                view = ReflectionView(commitment_id, ReflectionStatus.ERROR, error=str(exc))
            except Exception:
                log.exception("reflection failed unexpectedly")
                view = ReflectionView(
                    commitment_id,
                    ReflectionStatus.ERROR,
                    error="The reflection failed; see the log.",
                )
            with self._work as work:
                if scope is not self._scope or scope.cancelled:
                    return  # superseded, or the commitment left review
                self._view, self._scope = view, None
                work.changed()

        try:
            self._executor.submit(call)
        except RuntimeError:  # shutting down with the server
            scope.cancel()

    def stop(self) -> None:
        """After a change that left review (work.then): cancel, under the lock again."""
        with self._work:
            self.cancel()

    def cancel(self) -> None:
        """Under the lock: stop a running call (its CLI is killed) and forget the result."""
        if self._scope is not None:
            self._scope.cancel()
            self._scope = None
        self._view = ReflectionView()


def review_facts(
    commitment: Commitment, focus: WindowTime, drift: tuple[int, float | None] | None
) -> ReviewFacts:
    """What the coach is told: the plan, the time, focus per app (no window titles)."""
    taken = commitment.actual_secs
    return ReviewFacts(
        next_action=commitment.next_action,
        success_condition=commitment.success_condition,
        planned_minutes=commitment.timebox_secs // 60,
        actual_minutes=whole_minutes(taken),
        ran_out=commitment.ran_out,
        apps=[(a.app, round(a.fraction * 100)) for a in focus.apps],
        drift_count=drift[0] if drift is not None else None,
    )
