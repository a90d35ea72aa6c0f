"""A new database is made by one script (store/fresh_schema.py), not by the migrations one
after another: it must be the database those migrations make, byte for byte where it counts —
its schema as SQLite keeps it (`sqlite_master`: each object's type, name, table and SQL, in
order), its ids (`application_id`, `user_version`), the migrations it records and its rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from antidrift.store import check, fresh_schema, opening
from antidrift.store.migrations import MIGRATIONS


def _one_by_one(path: Path) -> None:
    """A new database migrated as before the fresh schema: each migration in its own
    transaction, ALTER TABLE after ALTER TABLE."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA application_id = {check.APPLICATION_ID}")
    db.execute(check.SCHEMA_MIGRATIONS)
    for version, name, sql in MIGRATIONS:
        db.execute("BEGIN IMMEDIATE")
        for statement in filter(str.strip, sql.split(";")):
            db.execute(statement)
        db.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name))
        db.execute("COMMIT")
    db.close()


def _everything(path: Path) -> dict[str, object]:
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            "schema": db.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
            ).fetchall(),
            "application_id": db.execute("PRAGMA application_id").fetchone(),
            "user_version": db.execute("PRAGMA user_version").fetchone(),
            "migrations": db.execute(
                "SELECT version, name FROM schema_migrations ORDER BY version"
            ).fetchall(),
            "rows": {
                t: db.execute(f'SELECT * FROM "{t}"').fetchall()
                for t in tables
                if t != "schema_migrations"  # applied_at: when
            },
            "structure": check.structure(db),
        }
    finally:
        db.close()


def test_a_new_database_is_what_the_migrations_make(tmp_path):
    by_migrations, fresh = tmp_path / "migrated.sqlite3", tmp_path / "fresh.sqlite3"
    _one_by_one(by_migrations)
    db = opening.connect(str(fresh))
    db.close()
    made = _everything(fresh)
    assert made == _everything(by_migrations)
    assert made["migrations"] == [(v, n) for v, n, _ in MIGRATIONS]
    assert made["rows"]["runtime"] == [(1, "locked", None, None, None)], "the one row"


def test_the_fresh_schema_is_one_transaction_with_no_alter_table(tmp_path):
    """What makes it fast: no migration's ALTER TABLE or UPDATE runs on a new database."""
    db = sqlite3.connect(tmp_path / "new.sqlite3", isolation_level=None)
    ran: list[str] = []
    db.set_trace_callback(ran.append)
    opening.migrate(db)
    db.close()
    assert [s for s in ran if s.startswith(("ALTER", "UPDATE"))] == []
    assert sum(s == "BEGIN IMMEDIATE" for s in ran) == 1


def test_a_migration_after_the_fresh_schema_applies_after_it(tmp_path, monkeypatch):
    extra = (fresh_schema.FRESH_VERSION + 1, "add_tags", "CREATE TABLE tags (name TEXT)")
    later = [m for m in MIGRATIONS if m[0] <= fresh_schema.FRESH_VERSION]
    monkeypatch.setattr(opening, "MIGRATIONS", [*later, extra])
    db = sqlite3.connect(tmp_path / "new.sqlite3", isolation_level=None)
    opening.migrate(db)
    names = [r[0] for r in db.execute("SELECT name FROM schema_migrations ORDER BY version")]
    assert names == [n for _, n, _ in later] + ["add_tags"]
    assert db.execute("SELECT COUNT(*) FROM tags").fetchone() == (0,)
    db.close()


@pytest.mark.parametrize("known", [3, fresh_schema.FRESH_VERSION - 1])
def test_an_older_antidrift_makes_its_own_schema_by_its_migrations(tmp_path, monkeypatch, known):
    """With fewer migrations known than the script makes (a test's older AntiDrift), a new
    database gets exactly those."""
    monkeypatch.setattr(opening, "MIGRATIONS", MIGRATIONS[:known])
    db = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    opening.migrate(db)
    versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    found = check.structure(db)
    db.close()
    assert versions == list(range(1, known + 1))
    assert check.structure_differs(found, set(versions), MIGRATIONS) == ""


def test_a_database_with_tables_is_never_made_afresh(tmp_path):
    """Anything in the file but the empty table of migrations: the migrations decide."""
    db = sqlite3.connect(tmp_path / "odd.sqlite3", isolation_level=None)
    db.execute("CREATE TABLE runtime (id INTEGER PRIMARY KEY, state TEXT NOT NULL)")
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        opening.migrate(db)  # migration 1 ran (and refused), not the script
    assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone() == (0,)
    db.close()
