"""The one transition routine: every change to what AntiDrift keeps goes through `with work:`.

Inside, the session's lock is held and the store's change is open: its one SQLite transaction
begins at the change's first write (`BEGIN IMMEDIATE`). `work.changed()` moves the version
(the pages re-render); `work.then(...)` holds what must wait for the commit (a push, a judge
call, a nudge, a coach process started or stopped). Leaving the outermost block commits, then
releases the lock, runs that work in order and tells the listeners — once, and only when
something changed. A block inside another (a part calling a part) joins it.

An exception (a refusal, a failed write, a failed commit) rolls the transaction back and
puts every part this unit of work keeps (`keep`) back as it was when the block began: the
database and the session in memory, and so `/state` and every page, are exactly as before;
nothing waiting runs and no listener hears of it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from antidrift.core.ports import Changes

log = logging.getLogger("antidrift.session")

Listener = Callable[[], None]


class Kept(Protocol):
    """A part whose state in memory belongs to the change: taken before it, given back after
    a rollback."""

    def memento(self) -> object: ...
    def restore(self, memento: object) -> None: ...


class _NoStore:
    """Changes for a unit of work with nothing to write to."""

    def open_change(self) -> None: ...
    def commit_change(self) -> None: ...
    def rollback_change(self) -> None: ...


class UnitOfWork:
    """The session's lock, the store's transaction, its version (what the pages are keyed
    by), the parts it restores on a rollback, and its listeners."""

    def __init__(self, store: Changes | None = None) -> None:
        self._store: Changes = store if store is not None else _NoStore()
        self._lock = threading.RLock()
        self.version = 0
        self._listeners: list[Listener] = []
        self._kept: list[Kept] = []
        self._depth = 0  # nested blocks of the thread holding the lock
        self._since = 0  # the version when the outermost block began
        self._then: list[Callable[[], None]] = []
        self._before: list[object] = []  # each kept part's memento, at the outermost block

    def subscribe(self, listener: Listener) -> None:
        """Call `listener()` after every change that was committed (off the lock)."""
        self._listeners.append(listener)

    def keep(self, part: Kept) -> None:
        """A part whose memory a rollback puts back (at construction, before any change)."""
        self._kept.append(part)

    def __enter__(self) -> UnitOfWork:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            self._since, self._then = self.version, []
            try:
                self._before = [part.memento() for part in self._kept]
                self._store.open_change()
            except BaseException:
                self._depth -= 1
                self._lock.release()
                raise
        return self

    def changed(self) -> None:
        """Under the lock, after a mutation: the version moves; the listeners hear of it."""
        self.version += 1

    def then(self, work: Callable[[], None]) -> None:
        """Under the lock: run `work` once the change is committed and the lock released."""
        self._then.append(work)

    def __exit__(self, kind, exc, tb) -> None:
        self._depth -= 1
        if self._depth:
            self._lock.release()
            return
        then, self._then = self._then, []
        try:
            if kind is None:
                self._store.commit_change()  # a failed commit rolls back: the except below
            else:
                self._store.rollback_change()
        except BaseException:
            self._undo()
            raise
        finally:
            before, self._before = self._before, []
        if kind is not None:
            self._undo(before)
            return
        moved = self.version != self._since
        self._lock.release()
        try:
            for work in then:
                work()
        finally:
            if moved:
                self.notify()

    def _undo(self, before: list[object] | None = None) -> None:
        """Every kept part back as it was, the version too; then the lock goes."""
        try:
            for part, memento in zip(self._kept, before or self._before, strict=True):
                part.restore(memento)
            self.version = self._since
        finally:
            self._lock.release()

    def notify(self) -> None:
        """Tell every listener (after the lock); one that fails is logged, the rest still run."""
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # a broken listener must not undo a committed change
                log.exception("listener failed")
