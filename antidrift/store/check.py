"""What a database file is, found out read-only before the store writes a byte into it.

AntiDrift marks its files with `PRAGMA application_id`. A 0.2 file (id 0) is recognised by
its first migration and marked when opened; anything else is someone else's and is never
migrated. A file from a newer AntiDrift, a damaged file and one we may not write are refused
too: each with a sentence saying where the file is and what to do.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Collection, Sequence
from pathlib import Path
from urllib.parse import quote

from antidrift.core.errors import Error

APPLICATION_ID = 0x41447269  # "ADri"
# The table of applied migrations, as opening.migrate makes it.
SCHEMA_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS schema_migrations"
    " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL"
    " DEFAULT CURRENT_TIMESTAMP)"
)
MOVE_ASIDE = "move it aside (rename it) to start afresh, or choose another --data-dir"
ANOTHER_BACKUP = "choose another backup"  # a file to restore from is never moved aside


class UnusableDatabase(Error):
    """The file must not be opened for writing; the message says what to do."""


def inspect(path: Path, known_versions: Collection[int], *, writable: bool = True) -> None:
    """Refuse (UnusableDatabase) a file that is not ours, newer, damaged or (unless
    `writable` is false: a file to restore from) read-only.

    sqlite3.OperationalError (a lock held by another program) is left to the caller.
    """
    if not path.exists() or path.stat().st_size == 0:
        return  # a new database
    beside = _beside(path)
    found = {part for part in beside if part.exists()}
    try:
        _check(path, known_versions, MOVE_ASIDE if writable else ANOTHER_BACKUP)
    except UnusableDatabase:
        # A refused file is left as it was found: without a -wal or -shm it did not have.
        for part in set(beside) - found:
            part.unlink(missing_ok=True)
        raise
    if writable:
        _require_writable(path)


def inspect_restorable(path: Path, migrations: Sequence[tuple[int, str, str]]) -> None:
    """Refuse (UnusableDatabase) a file to restore from unless start-up would open it and it
    is exactly what the migrations make: AntiDrift's mark (or 0.2's signature), versions 1..n
    that this AntiDrift knows, and the structure those migrations make at that version (no
    table missing, no trigger or view, index, column or constraint changed or added)."""
    inspect(path, [version for version, _, _ in migrations], writable=False)
    try:
        db = open_read_only(path)
    except (OSError, sqlite3.Error) as exc:
        raise UnusableDatabase(f"Cannot read {path}: {exc}.") from None
    try:
        found = structure(db)
        versions = (
            {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
            if ("table", "schema_migrations") in found
            else set()
        )
    except sqlite3.DatabaseError as exc:
        raise UnusableDatabase(_unrestorable(path, str(exc))) from None
    finally:
        db.close()
    if not versions:  # an empty SQLite file (inspect lets a new one through): no history
        raise UnusableDatabase(_unrestorable(path, "it holds no AntiDrift history at all"))
    if versions != set(range(1, max(versions) + 1)):
        raise UnusableDatabase(_unrestorable(path, "its schema versions have a gap"))
    differs = structure_differs(found, versions, migrations)
    if differs:
        raise UnusableDatabase(_unrestorable(path, differs))


def structure_differs(
    found: dict, versions: set[int], migrations: Sequence[tuple[int, str, str]]
) -> str:
    """How a database's structure (`structure`) differs from what the migrations of
    `versions` make, in words ("" when it does not)."""
    made = _made_by([m for m in migrations if m[0] in versions])
    missing = sorted(name for kind, name in set(made) - set(found) if kind == "table")
    if missing:
        return f"its table {missing[0]} is missing"
    alien = sorted(
        f"{kind} {name}" for kind, name in set(found) - set(made) if kind in ("trigger", "view")
    )
    if alien:
        # A trigger runs on our own writes: one we did not make is never let in.
        return f"it has a {alien[0]} AntiDrift did not make"
    differs = _first_difference(found, made)
    if differs:
        return (
            f"its structure is not what AntiDrift makes at schema version {max(versions)}"
            f" ({differs})"
        )
    return ""


def structure(db: sqlite3.Connection) -> dict[tuple[str, str], object]:
    """A database's structure, normalised (not its SQL text, so the same schema made by an
    older AntiDrift compares equal): each table's columns (name, type, NOT NULL, default,
    key), foreign keys and CHECK constraints; each index's table, uniqueness, columns and
    condition; each trigger's and view's normalised SQL."""
    found: dict[tuple[str, str], object] = {}
    rows = db.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).fetchall()
    for kind, name, table, sql in rows:
        if kind == "table":
            found[(kind, name)] = _table(db, name, sql or "")
        elif kind == "index":
            found[(kind, name)] = _index(db, name, table, sql or "")
        else:
            found[(kind, name)] = _words(sql or "")
    for kind, name in list(found):
        if kind == "table":  # the indexes UNIQUE and PRIMARY KEY make, by what they cover
            for _, index, unique, origin, partial in db.execute(
                f"PRAGMA index_list({_quoted(name)})"
            ):
                if origin != "c":
                    columns = tuple(
                        r[2] for r in db.execute(f"PRAGMA index_info({_quoted(index)})")
                    )
                    found[("key", f"{name}{columns}")] = (origin, unique, partial)
    return found


def _table(db: sqlite3.Connection, name: str, sql: str) -> object:
    columns = tuple(
        (col, (kind or "").upper(), notnull, _words(default or ""), pk, hidden)
        for _, col, kind, notnull, default, pk, hidden in db.execute(
            f"PRAGMA table_xinfo({_quoted(name)})"
        )
    )
    if name == "schema_migrations":  # 0.2 made it as it was then: its columns suffice
        return tuple(sorted(c[0] for c in columns))
    keys = tuple(
        sorted(tuple(r[2:]) for r in db.execute(f"PRAGMA foreign_key_list({_quoted(name)})"))
    )
    return columns, keys, tuple(sorted(_checks(sql))), "WITHOUT ROWID" in _words(sql)


def _index(db: sqlite3.Connection, name: str, table: str, sql: str) -> object:
    columns = tuple(
        (col, desc, coll)
        for _, _, col, desc, coll, key in db.execute(f"PRAGMA index_xinfo({_quoted(name)})")
        if key
    )
    words = _words(sql)
    where = words.split(" WHERE ", 1)[1] if " WHERE " in words else ""
    return table, words.startswith("CREATE UNIQUE"), columns, where


_CHECK = re.compile(r"\bCHECK\s*\(", re.IGNORECASE)


def _checks(sql: str) -> list[str]:
    """The CHECK constraints of a CREATE TABLE, each normalised: `CHECK (` as a word (not a
    column such as last_checked), its parentheses balanced outside quoted text."""
    found, at = [], 0
    while (match := _CHECK.search(sql, at)) is not None:
        depth, quote, end = 0, "", match.end() - 1
        for end in range(match.end() - 1, len(sql)):
            char = sql[end]
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"`[":
                quote = "]" if char == "[" else char
            elif char in "()":
                depth += 1 if char == "(" else -1
                if depth == 0:
                    break
        found.append(_words(sql[match.end() - 1 : end + 1]))
        at = end + 1
    return found


def _words(sql: str) -> str:
    """SQL text with its spacing and the case of its words made one (quoted text kept)."""
    return " ".join(sql.replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()).upper()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_difference(found: dict, made: dict) -> str:
    """The first way `found` differs from `made`, in words; "" when it does not."""
    for kind, name in sorted(set(found) | set(made)):
        label = "a key" if kind == "key" else f"{'an' if kind == 'index' else 'a'} {kind} {name}"
        if (kind, name) not in made:
            return f"{label} AntiDrift did not make"
        if (kind, name) not in found:
            return f"{label} is missing"
        if found[(kind, name)] != made[(kind, name)]:
            return f"{label} is not as AntiDrift makes it"
    return ""


def _made_by(migrations: Sequence[tuple[int, str, str]]) -> dict[tuple[str, str], object]:
    """What these migrations make, normalised, made in memory the way opening.py does."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.execute(SCHEMA_MIGRATIONS)
        for _, _, sql in migrations:
            for statement in filter(str.strip, sql.split(";")):
                db.execute(statement)
        return structure(db)
    finally:
        db.close()


def _unrestorable(path: Path, why: str) -> str:
    return f"{path} is not a backup AntiDrift can restore: {why}."


def _beside(path: Path) -> list[Path]:
    return [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")]


def open_read_only(path: Path, timeout: float = 2.0) -> sqlite3.Connection:
    """A read-only connection that adds no file beside the database when it can help it.

    With no WAL or journal beside it the file is the whole database: it is read as
    immutable, and SQLite creates no -wal and -shm (a plain read-only open of a WAL database
    does). The caller holds the data directory's lock then, so AntiDrift does not write it
    meanwhile. With a WAL beside it (a server runs, or was killed) it is read through it.
    """
    immutable = not any(part.exists() for part in _beside(path))
    mode = "mode=ro&immutable=1" if immutable else "mode=ro"
    return sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True, timeout=timeout)


def _check(path: Path, known_versions: Collection[int], advice: str) -> None:
    try:
        with path.open("rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                raise UnusableDatabase(_foreign(path, "it is not an SQLite database", advice))
        db = open_read_only(path)
    except OSError as exc:
        raise UnusableDatabase(f"Cannot read the database {path}: {exc.strerror}.") from exc
    try:
        _identify(db, path, known_versions, advice)
        problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise UnusableDatabase(_damaged(path, problems[0], advice))
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise
        raise UnusableDatabase(_damaged(path, str(exc), advice)) from exc
    except sqlite3.DatabaseError as exc:
        if "malformed" in str(exc) or "corrupt" in str(exc):
            raise UnusableDatabase(_damaged(path, str(exc), advice)) from exc
        raise UnusableDatabase(_foreign(path, str(exc), advice)) from exc
    finally:
        db.close()


def _identify(
    db: sqlite3.Connection, path: Path, known_versions: Collection[int], advice: str
) -> None:
    """Return if the file is AntiDrift's (marked, or 0.2's unmarked), else raise."""
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id not in (0, APPLICATION_ID):
        why = f"it belongs to another program, id {app_id:#x}"
        raise UnusableDatabase(_foreign(path, why, advice))
    if app_id == 0 and not tables:
        return  # an empty SQLite file: nothing in it to lose
    if app_id == 0 and not _is_antidrift_02(db, tables):
        raise UnusableDatabase(_foreign(path, "its tables are not AntiDrift's", advice))
    versions = {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
    unknown = versions - set(known_versions)
    if unknown:
        raise UnusableDatabase(
            f"The database {path} was made by a newer AntiDrift (schema version"
            f" {max(unknown)}; this one knows up to {max(known_versions)}). Upgrade AntiDrift,"
            f" or {advice}; this version will not change it."
        )


def _is_antidrift_02(db: sqlite3.Connection, tables: set[str]) -> bool:
    """AntiDrift 0.2 wrote no application_id; its first migration is its signature."""
    if not {"schema_migrations", "runtime", "commitments", "samples"} <= tables:
        return False
    try:
        row = db.execute("SELECT name FROM schema_migrations WHERE version = 1").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == "initial"


def _require_writable(path: Path) -> None:
    """Opened without write access SQLite falls back to read-only and fails at the first
    transition; say so now. (Root passes this; the store's write probe still runs.)"""
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if part.exists() and not os.access(part, os.W_OK, effective_ids=_effective()):
            raise UnusableDatabase(
                f"Cannot write the database {part}: permission denied (was it made by another"
                " user, with sudo?). Give it back to yourself (chown), or"
                f" {MOVE_ASIDE}."
            )


def _effective() -> bool:
    return os.access in os.supports_effective_ids


def _foreign(path: Path, why: str, advice: str) -> str:
    if advice == ANOTHER_BACKUP:
        return f"{path} is not an AntiDrift database ({why}): {advice}."
    return (
        f"{path} is not an AntiDrift database ({why}). AntiDrift never writes into a file"
        f" it did not make: {advice}."
    )


def _damaged(path: Path, problem: str, advice: str) -> str:
    if advice == ANOTHER_BACKUP:
        return f"{path} is damaged (quick_check: {problem}): {advice}."
    return (
        f"The database {path} is damaged (quick_check: {problem}). Keep it (the sqlite3"
        f" tool's .recover may save its history), and {advice}."
    )
