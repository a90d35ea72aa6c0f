"""What every import of another machine's records asks of the sync tables (migration 16),
whatever their kind (commitments, rules, day items, evidence): the clock stamp kept of each
record, the records changed here and waiting in the outbox (the later change: an import never
undoes one), and a record's stamp kept once it is taken. One statement each, in chunks that
SQLite's parameter limit takes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence

CHUNK = 500  # parameters in one statement (SQLite's limit is 999 at the least)


def marks(values: Sequence[object]) -> str:
    """The placeholders of an `IN (...)` for these values."""
    return ", ".join("?" * len(values))


def chunks(values: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def seen(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str]:
    """The newest stamp kept of each of these record ids (those kept)."""
    found: dict[str, str] = {}
    for chunk in chunks(ids):
        found.update(
            db.execute(
                f"SELECT record_id, hlc FROM sync_seen WHERE record_id IN ({marks(chunk)})", chunk
            ).fetchall()
        )
    return found


def waiting(db: sqlite3.Connection, ids: Sequence[str], kind: str) -> set[str]:
    """Those of these record ids (of `kind`: `<kind>:<ref>`) changed here and still in the
    outbox."""
    refs = [i.removeprefix(f"{kind}:") for i in ids if i.startswith(f"{kind}:")]
    found: set[str] = set()
    for chunk in chunks(refs):
        rows = db.execute(
            f"SELECT ref FROM sync_outbox WHERE kind = ? AND ref IN ({marks(chunk)})",
            [kind, *chunk],
        ).fetchall()
        found |= {f"{kind}:{row[0]}" for row in rows}
    return found


def keep_seen(db: sqlite3.Connection, stamps: Iterable[tuple[str, str]]) -> None:
    """Inside a change: each record's stamp kept, where it is newer than the one kept."""
    db.executemany(
        "INSERT INTO sync_seen (record_id, hlc) VALUES (?, ?) ON CONFLICT(record_id)"
        " DO UPDATE SET hlc = excluded.hlc WHERE excluded.hlc > sync_seen.hlc",
        list(stamps),
    )
