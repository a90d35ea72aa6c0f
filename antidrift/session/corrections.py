"""Changes to the history after the fact: a corrected outcome or note, a removed entry.

Each change is one unit of work of the session: the store is written and the version moves
(the locked view lists the history) in one transaction; the listeners hear of it after the
commit.
"""

from __future__ import annotations

from antidrift.core.domain import Commitment, NotFound, validate_review
from antidrift.core.ports import Repository
from antidrift.session.unit_of_work import UnitOfWork


class Corrections:
    """Correct or remove an ended commitment; NotFound when the history has no such entry."""

    def __init__(self, store: Repository, work: UnitOfWork) -> None:
        self._store = store
        self._work = work

    def correct(self, commitment_id: str, outcome: object, note: object = "") -> Commitment:
        """Change an ended commitment's outcome and note (a mistaken "missed", a better note)."""
        with self._work as work:
            # What is addressed first, as transitions check the state before the input.
            if self._store.entry(commitment_id) is None:
                raise NotFound("There is no such entry in the history.")
            result, text = validate_review(outcome, note)
            fixed = self._store.correct(commitment_id, result, text)
            if fixed is None:
                raise NotFound("There is no such entry in the history.")
            work.changed()  # the locked view lists the history
        return fixed

    def remove(self, commitment_id: str) -> None:
        """Delete an ended commitment and its evidence from the history."""
        with self._work as work:
            if not self._store.delete(commitment_id):
                raise NotFound("There is no such entry in the history.")
            work.changed()
