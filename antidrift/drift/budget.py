"""The judge's hourly budget: at most so many calls in any hour, across commitments."""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta


class CallBudget:
    """At most max_calls judge calls in any hour (it outlives commitments)."""

    def __init__(self, max_calls: int) -> None:
        self.max_calls = max_calls
        self._starts: deque[datetime] = deque()

    def _prune(self, now: datetime) -> None:
        while self._starts and now - self._starts[0] >= timedelta(hours=1):
            self._starts.popleft()

    def available(self, now: datetime) -> bool:
        self._prune(now)
        return len(self._starts) < self.max_calls

    def spend(self, now: datetime) -> None:
        self._starts.append(now)

    def copy(self) -> CallBudget:
        """A copy that spends apart (a change's memento)."""
        copied = CallBudget(self.max_calls)
        copied._starts = deque(self._starts)
        return copied

    def restore(self, copy: CallBudget) -> None:
        """What a copy holds, back in this budget (a rollback)."""
        self.max_calls, self._starts = copy.max_calls, deque(copy._starts)
