"""SQLite persistence: runtime state, the current commitment, its samples, the history."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from antidrift import dbcheck
from antidrift.domain import Commitment, Outcome, RuntimeState, WindowSample

# Numbered migrations, applied in order and recorded in schema_migrations. Never edit one
# that has shipped: add the next.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "initial",
        """
        CREATE TABLE runtime (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            state TEXT NOT NULL,
            commitment_id TEXT REFERENCES commitments(id)
        );
        CREATE TABLE commitments (
            id TEXT PRIMARY KEY,
            next_action TEXT NOT NULL,
            success_condition TEXT NOT NULL,
            timebox_secs INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            deadline TEXT NOT NULL,
            ended_at TEXT,
            outcome TEXT,
            note TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX commitments_by_end ON commitments(ended_at) WHERE outcome IS NOT NULL;
        CREATE TABLE samples (
            id INTEGER PRIMARY KEY,
            commitment_id TEXT NOT NULL REFERENCES commitments(id),
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX samples_by_commitment ON samples(commitment_id, at);
        INSERT INTO runtime (id, state) VALUES (1, 'locked');
        """,
    ),
    (
        2,
        "extended_secs",
        # Time added by /extend; timebox_secs stays what was planned.
        "ALTER TABLE commitments ADD COLUMN extended_secs INTEGER NOT NULL DEFAULT 0",
    ),
]


class StoreError(Exception):
    """The data directory or database cannot be used; the message says how to fix it."""


@dataclass
class Persisted:
    """What a restart resumes from."""

    state: RuntimeState = RuntimeState.LOCKED
    commitment: Commitment | None = None
    samples: list[WindowSample] = field(default_factory=list)


class Store(Protocol):
    """The persistence port the controller depends on."""

    def load(self) -> Persisted: ...
    def save(self, state: RuntimeState, commitment: Commitment | None) -> None: ...
    def add_sample(self, commitment_id: str, sample: WindowSample) -> None: ...
    def history(self, limit: int | None = None) -> list[Commitment]: ...
    def samples(self, commitment_id: str) -> list[WindowSample]: ...
    def close(self) -> None: ...


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _commitment(row: sqlite3.Row) -> Commitment:
    return Commitment(
        id=row["id"],
        next_action=row["next_action"],
        success_condition=row["success_condition"],
        timebox_secs=row["timebox_secs"],
        started_at=_dt(row["started_at"]),
        deadline=_dt(row["deadline"]),
        ended_at=_dt(row["ended_at"]),
        outcome=Outcome(row["outcome"]) if row["outcome"] else None,
        note=row["note"],
        extended_secs=row["extended_secs"],
    )


class SQLiteStore:
    """The embedded default store: one file, WAL, every write its own transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            prepare_directory(Path(self.path).parent)
        try:
            if self.path != ":memory:":
                # Read-only, before anything (even journal_mode) writes into the file.
                dbcheck.inspect(Path(self.path), [version for version, _, _ in MIGRATIONS])
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=2.0
            )
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL survives a killed process (the WAL is in the OS's hands); FULL would
            # only add power-loss safety at the cost of an fsync per sample.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._lock = threading.Lock()
            self._migrate()
            # Prove we can write now, not at the first transition: in WAL mode another
            # program's exclusive transaction still lets us open and read the database.
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("ROLLBACK")
        except dbcheck.UnusableDatabase as exc:
            raise StoreError(str(exc)) from None
        except sqlite3.OperationalError as exc:
            raise StoreError(_explain(self.path, exc)) from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not an AntiDrift database ({exc}).") from exc

    def _migrate(self) -> None:
        with self._lock:
            # Marked first, so a file we created is ours even if we stop half-way through.
            if self._db.execute("PRAGMA application_id").fetchone()[0] != dbcheck.APPLICATION_ID:
                self._db.execute(f"PRAGMA application_id = {dbcheck.APPLICATION_ID}")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL"
                " DEFAULT CURRENT_TIMESTAMP)"
            )
            done = {row[0] for row in self._db.execute("SELECT version FROM schema_migrations")}
            for version, name, sql in MIGRATIONS:
                if version in done:
                    continue
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in filter(str.strip, sql.split(";")):
                        self._db.execute(statement)
                    self._db.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                        (version, name),
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    def schema_version(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return row[0] or 0

    def load(self) -> Persisted:
        with self._lock:
            runtime = self._db.execute("SELECT state, commitment_id FROM runtime").fetchone()
            if runtime is None or runtime["commitment_id"] is None:
                state = RuntimeState(runtime["state"]) if runtime else RuntimeState.LOCKED
                return Persisted(state=state)
            row = self._db.execute(
                "SELECT * FROM commitments WHERE id = ?", (runtime["commitment_id"],)
            ).fetchone()
        commitment = _commitment(row)
        return Persisted(RuntimeState(runtime["state"]), commitment, self.samples(commitment.id))

    def save(self, state: RuntimeState, commitment: Commitment | None) -> None:
        """Write the runtime state and the commitment it points to, atomically."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if commitment is not None:
                    self._db.execute(
                        "INSERT INTO commitments (id, next_action, success_condition,"
                        " timebox_secs, started_at, deadline, ended_at, outcome, note,"
                        " extended_secs)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        " ON CONFLICT(id) DO UPDATE SET ended_at = excluded.ended_at,"
                        " outcome = excluded.outcome, note = excluded.note,"
                        " deadline = excluded.deadline, extended_secs = excluded.extended_secs",
                        (
                            commitment.id,
                            commitment.next_action,
                            commitment.success_condition,
                            commitment.timebox_secs,
                            _iso(commitment.started_at),
                            _iso(commitment.deadline),
                            _iso(commitment.ended_at),
                            commitment.outcome.value if commitment.outcome else None,
                            commitment.note,
                            commitment.extended_secs,
                        ),
                    )
                current = commitment.id if commitment and commitment.outcome is None else None
                self._db.execute(
                    "UPDATE runtime SET state = ?, commitment_id = ? WHERE id = 1",
                    (state.value, current),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def add_sample(self, commitment_id: str, sample: WindowSample) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO samples (commitment_id, app, title, at) VALUES (?, ?, ?, ?)",
                (commitment_id, sample.app, sample.title, _iso(sample.at)),
            )

    def samples(self, commitment_id: str) -> list[WindowSample]:
        with self._lock:
            rows = self._db.execute(
                "SELECT app, title, at FROM samples WHERE commitment_id = ? ORDER BY at, id",
                (commitment_id,),
            ).fetchall()
        return [WindowSample(r["app"], r["title"], _dt(r["at"])) for r in rows]

    def history(self, limit: int | None = None) -> list[Commitment]:
        """Ended commitments, newest first; all of them unless limited."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM commitments WHERE outcome IS NOT NULL"
                " ORDER BY ended_at DESC, rowid DESC LIMIT ?",
                (-1 if limit is None else limit,),
            ).fetchall()
        return [_commitment(r) for r in rows]

    def integrity_ok(self) -> bool:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def close(self) -> None:
        with self._lock:
            # If another process holds the database the WAL simply stays: nothing is lost.
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()


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
