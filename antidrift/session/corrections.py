"""Changes to the history after the fact: a corrected outcome or note, a removed entry.

Built by the controller, whose lock it shares: the store is written first, then the
controller's version moves (the locked view lists the history), then its listeners hear of
it once the lock is released.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from antidrift.core.domain import Commitment, NotFound, validate_review
from antidrift.core.ports import Store


class Corrections:
    """Correct or remove an ended commitment; NotFound when the history has no such entry."""

    def __init__(
        self,
        store: Store,
        lock: threading.RLock,
        changed: Callable[[], None],
        notify: Callable[[], None],
    ) -> None:
        self._store = store
        self._lock = lock
        self._changed = changed  # under the lock: bump the version
        self._notify = notify  # after the lock: the listeners

    def correct(self, commitment_id: str, outcome: object, note: object = "") -> Commitment:
        """Change an ended commitment's outcome and note (a mistaken "missed", a better note)."""
        with self._lock:
            # What is addressed first, as transitions check the state before the input.
            if self._store.entry(commitment_id) is None:
                raise NotFound("There is no such entry in the history.")
            result, text = validate_review(outcome, note)
            fixed = self._store.correct(commitment_id, result, text)
            if fixed is None:
                raise NotFound("There is no such entry in the history.")
            self._changed()  # the locked view lists the history
        self._notify()
        return fixed

    def remove(self, commitment_id: str) -> None:
        """Delete an ended commitment and its evidence from the history."""
        with self._lock:
            if not self._store.delete(commitment_id):
                raise NotFound("There is no such entry in the history.")
            self._changed()
        self._notify()
