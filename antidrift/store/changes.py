"""The store's two connections and its change: one SQLite transaction per change.

No store method commits on its own: a write belongs to a change (`open_change` …
`commit_change` or `rollback_change`, which the session's unit of work calls), whose one
transaction is begun at its first write (`BEGIN IMMEDIATE`: the write lock is taken at once,
so no change fails halfway on a busy database) on the writing connection. Reads from the
thread that holds the change see its writes; every other read goes through a connection of
its own, and so never sees a row that is not committed.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from antidrift.core.errors import OutsideChange
from antidrift.store.opening import connect, open_reader
from antidrift.store.write_errors import GuardedConnection

AUTOCHECKPOINT = 1000  # pages: SQLite's own default, kept between deferred stretches


class Connections:
    """The writing connection (the change's) and the reading one (everyone else's)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._writer = connect(self.path)
        self._reader = self._writer if self.path == ":memory:" else open_reader(self.path)
        self._write_lock = threading.RLock()
        self._read_lock = self._write_lock if self._reader is self._writer else threading.Lock()
        self._changing = threading.RLock()  # held by the thread whose change is open
        self._owner: int | None = None  # that thread
        self._begun = False  # the change has written: its transaction is open

    @property
    def _mine(self) -> bool:
        return self._owner == threading.get_ident()

    @property
    def _db(self) -> GuardedConnection:
        """The connection this thread reads through: its change's, or the readers'."""
        return self._writer if self._mine else self._reader

    @property
    def _lock(self) -> threading.Lock:
        return self._write_lock if self._mine else self._read_lock

    def _writing(self) -> GuardedConnection:
        """For a write: the change's connection, its transaction begun at the first write.
        A write outside a change is a bug (it would commit on its own)."""
        if not self._mine:
            raise OutsideChange("a store write outside a change (the unit of work opens one)")
        if self._begun:
            self._writer.fail_if_lost()
        else:
            self._writer.execute("BEGIN IMMEDIATE")
            self._begun = True
        return self._writer

    # -- the change's transaction (Changes, core/ports.py) -----------------------------------

    def open_change(self) -> None:
        """This thread's change begins (nothing is written until its first write)."""
        self._changing.acquire()
        self._owner, self._begun = threading.get_ident(), False

    def commit_change(self) -> None:
        """The change's writes, committed together; WriteFailed (and nothing kept) when any
        of them failed or the commit itself does."""
        try:
            if self._begun:
                with self._write_lock:
                    self._writer.fail_if_lost()
                    self._writer.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        finally:
            self._close_change()

    def rollback_change(self) -> None:
        """Nothing the change wrote is kept."""
        try:
            self._rollback()
        finally:
            self._close_change()

    def _rollback(self) -> None:
        if self._begun:
            with self._write_lock:
                self._writer.execute("ROLLBACK")

    def _close_change(self) -> None:
        self._owner, self._begun = None, False
        self._changing.release()

    @contextlib.contextmanager
    def deferred_checkpoints(self) -> Iterator[None]:
        """Around many changes in a row (sync's first import of a whole history): the log is
        not copied into the database at each commit (which rewrote the same pages again and
        again, inside the write lock) but once after, beside any writer (a passive
        checkpoint on a connection of its own, which never waits for the write lock)."""
        with self._write_lock:
            self._writer.execute("PRAGMA wal_autocheckpoint=0")
        try:
            yield
        finally:
            with self._write_lock:
                self._writer.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT}")
            if self.path != ":memory:":
                with contextlib.suppress(sqlite3.Error):
                    checkpointer = sqlite3.connect(self.path, timeout=1)
                    try:
                        checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    finally:
                        checkpointer.close()

    def close(self) -> None:
        with self._write_lock, self._read_lock:
            if self._reader is not self._writer:
                self._reader.close()
            # If another process holds the database the WAL simply stays: nothing is lost.
            with contextlib.suppress(sqlite3.Error):
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._writer.close()
