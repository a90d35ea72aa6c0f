"""The one transition routine: every change to the session goes through `with work:`.

Inside, the session's lock is held: check the state, validate the input, save to the store
first (a failed save changes nothing), mutate, then `work.changed()` (the version moves: the
pages re-render) and `work.then(...)` for what must wait for the lock to be released (a judge
call, a nudge, putting a window away). Leaving the outermost block releases the lock, runs
that work in order, then tells the listeners — once, and only when something changed. A block
inside another (a part calling a part) joins it: one lock, one announcement. An exception
drops the waiting work but still announces what had changed before it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("antidrift.session")

Listener = Callable[[], None]


class UnitOfWork:
    """The session's lock, its version (what the pages are keyed by) and its listeners."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.version = 0
        self._listeners: list[Listener] = []
        self._depth = 0  # nested blocks of the thread holding the lock
        self._since = 0  # the version when the outermost block began
        self._then: list[Callable[[], None]] = []

    def subscribe(self, listener: Listener) -> None:
        """Call `listener()` after every transition that changed something (off the lock)."""
        self._listeners.append(listener)

    def __enter__(self) -> UnitOfWork:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            self._since, self._then = self.version, []
        return self

    def changed(self) -> None:
        """Under the lock, after a mutation: the version moves; the listeners hear of it."""
        self.version += 1

    def then(self, work: Callable[[], None]) -> None:
        """Under the lock: run `work` once the lock is released, before the listeners."""
        self._then.append(work)

    def __exit__(self, kind, exc, tb) -> None:
        self._depth -= 1
        if self._depth:
            self._lock.release()
            return
        moved, then = self.version != self._since, self._then
        self._then = []
        self._lock.release()
        try:
            if kind is None:
                for work in then:
                    work()
        finally:
            if moved:
                self.notify()

    def notify(self) -> None:
        """Tell every listener (after the lock); one that fails is logged, the rest still run."""
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # a broken listener must not undo a committed transition
                log.exception("listener failed")
