"""Opening an AntiDrift SQLite database: the data directory proven writable, the file looked
at read-only first (ours, not newer, not damaged), WAL, the numbered migrations, a write probe.
What it hands back is the guarded connection the store's queries run on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from antidrift.core.errors import StoreError
from antidrift.store import check as dbcheck
from antidrift.store.migrations import MIGRATIONS
from antidrift.store.write_errors import GuardedConnection


def connect(path: str) -> GuardedConnection:
    """An open, migrated, writable database at `path`; StoreError says why not, and how to
    fix it."""
    if path != ":memory:":
        prepare_directory(Path(path).parent)
    try:
        if path != ":memory:":
            # Read-only, before anything (even journal_mode) writes into the file.
            dbcheck.inspect(Path(path), [version for version, _, _ in MIGRATIONS])
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=2.0)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL survives a killed process (the WAL is in the OS's hands); FULL would
        # only add power-loss safety at the cost of an fsync per sample.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db)
        # Prove we can write now, not at the first transition: in WAL mode another
        # program's exclusive transaction still lets us open and read the database.
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
        # From here on a failed write is a WriteFailed naming its cause (HTTP 503).
        return GuardedConnection(db, path)
    except dbcheck.UnusableDatabase as exc:
        raise StoreError(str(exc)) from None
    except sqlite3.OperationalError as exc:
        raise StoreError(_explain(path, exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not an AntiDrift database ({exc}).") from exc


def migrate(db: sqlite3.Connection) -> None:
    """Apply the migrations this database has not had, each in its own transaction."""
    # Marked first, so a file we created is ours even if we stop half-way through.
    if db.execute("PRAGMA application_id").fetchone()[0] != dbcheck.APPLICATION_ID:
        db.execute(f"PRAGMA application_id = {dbcheck.APPLICATION_ID}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations"
        " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL"
        " DEFAULT CURRENT_TIMESTAMP)"
    )
    done = {row[0] for row in db.execute("SELECT version FROM schema_migrations")}
    for version, name, sql in MIGRATIONS:
        if version in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in filter(str.strip, sql.split(";")):
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name)
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def prepare_directory(directory: Path) -> None:
    """Create the data directory and prove a file can be written there."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"Cannot create the data directory {directory}: {exc.strerror}."
            " Choose another with --data-dir or ANTIDRIFT_DATA_DIR."
        ) from exc
    probe = directory / ".antidrift-write-test"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StoreError(
            f"The data directory {directory} is not writable ({exc.strerror})."
            " Fix its permissions, or choose another with --data-dir or ANTIDRIFT_DATA_DIR."
        ) from exc


def _explain(path: str, exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (
            f"The database {path} is locked by another program (is AntiDrift already"
            " running?). Stop it, or use another --data-dir."
        )
    return f"Cannot open the database {path}: {text}."
