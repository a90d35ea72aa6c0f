"""Opening an AntiDrift SQLite database: the data directory proven writable, the file looked
at read-only first (ours, not newer, not damaged), WAL, the numbered migrations, a write probe.
What it hands back is the guarded connection the store's queries run on."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from antidrift.core.errors import StoreError
from antidrift.store import check as dbcheck
from antidrift.store import fresh_schema
from antidrift.store.migrations import MIGRATIONS
from antidrift.store.write_errors import GuardedConnection, cause_of

SQLITE_FULL, SQLITE_IOERR = 13, 10
ROOM_TO_START = 1 << 20  # bytes free below which a failed open is put down to a full disk
WAL_KEPT = 8 << 20  # bytes of write-ahead log kept when it starts over (journal_size_limit)


def connect(path: str) -> GuardedConnection:
    """An open, migrated, writable database at `path`; StoreError says why not, and how to
    fix it. A refused open leaves the directory as it found it: no -wal or -shm of its own
    (nor the file, when there was none)."""
    if path != ":memory:":
        prepare_directory(Path(path).parent)
    found = _present(path)
    db: sqlite3.Connection | None = None
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
        # A log grown long (sync's first import checkpoints once, after) is cut back to
        # this when it starts over, not kept at its largest until the next start.
        db.execute(f"PRAGMA journal_size_limit={WAL_KEPT}")
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
        _leave_as_found(db, path, found)
        raise StoreError(_explain(path, exc)) from exc
    except sqlite3.DatabaseError as exc:
        _leave_as_found(db, path, found)
        raise StoreError(f"{path} is not an AntiDrift database ({exc}).") from exc


def open_reader(path: str) -> GuardedConnection:
    """A second connection to the open database, for reads outside a change: in WAL mode it
    sees what was committed, never a change's rows before its commit (`query_only`: it
    cannot write)."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=2.0)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA query_only=ON")
    return GuardedConnection(db, path)


def _parts(path: str) -> list[Path]:
    return [Path(path), *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal"))]


def _present(path: str) -> set[Path]:
    return set() if path == ":memory:" else {part for part in _parts(path) if part.exists()}


def _leave_as_found(db: sqlite3.Connection | None, path: str, found: set[Path]) -> None:
    """After a refused open: close, then remove what this open made. A database that was
    there keeps any WAL or journal the open left with something in it (it may hold what a
    half-done migration committed: removing it could damage the file); an -shm is only an
    index of the WAL and is made again."""
    if db is not None:
        with contextlib.suppress(sqlite3.Error):
            db.close()
    if path == ":memory:":
        return
    database, *beside = _parts(path)
    new_file = database not in found
    for part in beside if not new_file else [*beside, database]:
        if part in found:
            continue
        with contextlib.suppress(OSError):
            if new_file or part.name.endswith("-shm") or part.stat().st_size == 0:
                part.unlink()


def migrate(db: sqlite3.Connection) -> None:
    """Apply the migrations this database has not had, each in its own transaction."""
    # Marked first, so a file we created is ours even if we stop half-way through.
    if db.execute("PRAGMA application_id").fetchone()[0] != dbcheck.APPLICATION_ID:
        db.execute(f"PRAGMA application_id = {dbcheck.APPLICATION_ID}")
    db.execute(dbcheck.SCHEMA_MIGRATIONS)
    done = {row[0] for row in db.execute("SELECT version FROM schema_migrations")}
    if not done and _makes_fresh(db):
        # A new database: what migrations 1..FRESH_VERSION make, in one script (fresh_schema).
        made = MIGRATIONS[: fresh_schema.FRESH_VERSION]
        _in_one_transaction(db, fresh_schema.SCHEMA, [(v, name) for v, name, _ in made])
        done = {version for version, _, _ in made}
    for version, name, sql in MIGRATIONS:
        if version not in done:
            _in_one_transaction(db, filter(str.strip, sql.split(";")), [(version, name)])


def _makes_fresh(db: sqlite3.Connection) -> bool:
    """Whether the fresh schema makes this database: nothing in it but the (empty) table of
    migrations, and migrations 1..FRESH_VERSION known (an older AntiDrift's tests run fewer)."""
    versions = [version for version, _, _ in MIGRATIONS[: fresh_schema.FRESH_VERSION]]
    if versions != list(range(1, fresh_schema.FRESH_VERSION + 1)):
        return False
    return db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 1


def _in_one_transaction(
    db: sqlite3.Connection, statements: Iterable[str], recorded: list[tuple[int, str]]
) -> None:
    """Run `statements` and record the migrations they are, all or nothing."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in statements:
            db.execute(statement)
        db.executemany("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", recorded)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite rolls back by itself on a full disk
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
    if cause_of(exc) in (SQLITE_FULL, SQLITE_IOERR) and _disk_full(Path(path).parent):
        return (
            f"The disk that holds {Path(path).parent} is full: AntiDrift cannot start without"
            " room to write. Free some space on it, or choose another --data-dir."
        )
    return f"Cannot open the database {path}: {text}."


def _disk_full(directory: Path) -> bool:
    """Too little room for a start (its WAL index alone takes 32 KiB); SQLite may say
    "disk I/O error" when it is the -shm that could not grow."""
    try:
        room = os.statvfs(directory)
    except OSError:
        return False
    return room.f_bavail * room.f_frsize < ROOM_TO_START
