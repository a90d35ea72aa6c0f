"""The SQLite store in tests that write to it directly, not through the session: every write
belongs to a change (core/ports.Changes), as the unit of work opens one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START

# The store's writes (each of them fails outside a change).
WRITES = frozenset(
    [
        "save",
        "save_draft",
        "save_rhythm",
        "add_sample",
        "mark_away",
        "save_judgement",
        "forget_verdicts",
        "save_episode",
        "save_drift_summary",
        "add_rule",
        "delete_rule",
        "correct",
        "delete",
        "claim_write_back",
        "release_write_back",
        "rebuild_app_time",
    ]
)


@contextmanager
def change(store) -> Iterator[object]:
    """One change on `store`, committed at the end (rolled back on an exception); yields the
    connection it writes through, for raw SQL (BEGIN comes at its first write)."""
    store = getattr(store, "store", store)  # a Committing's own store
    store.open_change()
    try:
        yield store._writing() if isinstance(store, SQLiteStore) else None
    except BaseException:
        store.rollback_change()
        raise
    store.commit_change()


class Committing:
    """`store`, each write in a change of its own (a test's one-line setup)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def __getattr__(self, name: str):
        found = getattr(self.store, name)
        if name not in WRITES:
            return found

        def written(*args, **kwargs):
            with change(self.store):
                return found(*args, **kwargs)

        return written


def committing(path) -> Committing:
    """A store at `path` whose every write commits as it is made."""
    return Committing(SQLiteStore(path))


def run(
    store, cid, *, minutes=30, start=START, took=None, samples=(), outcome=Outcome.MET, note=""
):
    """One commitment through active → review → history, with (app, title, offset) samples."""
    c = Commitment(
        cid, f"do {cid}", "done", minutes * 60, start, start + timedelta(minutes=minutes)
    )
    store.save(RuntimeState.ACTIVE, c)
    for app, title, offset in samples:
        store.add_sample(cid, WindowSample(app, title, start + timedelta(seconds=offset)))
    stopped = c.stopped(start + timedelta(minutes=took if took is not None else minutes))
    store.save(RuntimeState.REVIEW, stopped)
    ended = stopped.ended(stopped.ended_at, outcome, note)
    store.save(RuntimeState.LOCKED, ended)
    return ended
