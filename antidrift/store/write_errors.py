"""The store's connection while running: a failed write names its cause, is logged once, and
is never masked by the rollback after it.

SQLite rolls a transaction back by itself on SQLITE_FULL and some I/O errors; the store's own
`ROLLBACK` would then fail with "cannot rollback - no transaction is active" and hide why.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from antidrift.core.errors import WriteFailed

log = logging.getLogger("antidrift.store")

# Primary result codes (the low byte of sqlite_errorcode) that mean "cannot save now".
_CAUSES = {
    13: "the disk is full",  # SQLITE_FULL
    10: "the disk reported an I/O error",  # SQLITE_IOERR
    8: "the database has become read-only",  # SQLITE_READONLY
    5: "the database is locked by another program",  # SQLITE_BUSY
    6: "the database is locked by another program",  # SQLITE_LOCKED
    11: "the database is damaged",  # SQLITE_CORRUPT
    26: "the database file was replaced by something else",  # SQLITE_NOTADB
}
_ADVICE = {
    13: "Free some space on the disk that holds {dir}, then try again.",
    10: "Check the disk that holds {dir}, then try again.",
    8: "Check the permissions of {dir}, then restart AntiDrift.",
}


def cause_of(exc: sqlite3.Error) -> int | None:
    """The primary result code if the error means the database cannot save now."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    return code & 0xFF if code & 0xFF in _CAUSES else None


class GuardedConnection:
    """Wraps the store's sqlite3 connection (same `execute`, `executemany`); see the module
    docstring."""

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self._dir = str(Path(path).parent)
        self._failing: str | None = None  # the cause last logged, until a write succeeds
        self._log_lock = threading.Lock()
        self._lost: WriteFailed | None = None  # a write of the open transaction failed

    def fail_if_lost(self) -> None:
        """Before a change writes again or commits: a write of its transaction that failed
        (SQLite may have rolled it all back already) fails the whole change, even when the
        caller went on — nothing after it may run in autocommit, or be half kept."""
        if self._lost is not None:
            raise self._lost

    def __getattr__(self, name: str):
        return getattr(self._db, name)

    def execute(self, sql: str, parameters=()) -> sqlite3.Cursor | None:
        if sql in ("BEGIN IMMEDIATE", "ROLLBACK"):
            self._lost = None  # a new transaction, or none: nothing of the last is pending
        if sql == "ROLLBACK" and not self._db.in_transaction:
            return None  # SQLite already rolled back: keep the real error in flight
        return self._guarded(self._db.execute, sql, parameters)

    def executemany(self, sql: str, parameters) -> sqlite3.Cursor | None:
        """As execute: many rows of one write (the day's outbox rows, a queue spread anew)."""
        return self._guarded(self._db.executemany, sql, parameters)

    def _guarded(self, run, sql: str, parameters) -> sqlite3.Cursor | None:
        try:
            cursor = run(sql, parameters)
        except sqlite3.Error as exc:
            code = cause_of(exc)
            failed = self._failed(code, exc) if code is not None else None
            if self._db.in_transaction or sql == "COMMIT" or code is not None:
                self._lost = failed or WriteFailed(
                    "the database refused a write: nothing was saved and nothing changed."
                    " See the log."
                )
            if failed is None:
                raise
            raise failed from exc
        if (
            self._failing is not None
            and not self._db.in_transaction  # a COMMIT, or a write in autocommit mode
            and sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE", "COMMIT")
        ):
            self._recovered()
        return cursor

    def _failed(self, code: int, exc: sqlite3.Error) -> WriteFailed:
        cause = _CAUSES[code]
        advice = _ADVICE.get(code, "See the log; restarting AntiDrift will check the file.")
        message = f"{cause}: nothing was saved and nothing changed. {advice.format(dir=self._dir)}"
        with self._log_lock:
            first, self._failing = self._failing != cause, cause
        if first:
            log.error(
                "cannot save to the database (%s: %s); %s", cause, exc, advice.format(dir=self._dir)
            )
        return WriteFailed(message)

    def _recovered(self) -> None:
        with self._log_lock:
            was, self._failing = self._failing, None
        if was is not None:
            log.warning("the database saves again (after: %s)", was)
