"""store.check.inspect, read-only, on real SQLite files: what it lets through, what it refuses and
with which sentence, and that it never writes a byte. (The server's one-line refusal around
it: tests/security/test_sec_database_refusals.py.)"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from antidrift.store import check as dbcheck
from antidrift.store.check import APPLICATION_ID, UnusableDatabase, inspect
from antidrift.store.migrations import MIGRATIONS

KNOWN = [version for version, _, _ in MIGRATIONS]


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "antidrift.sqlite3"


def sqlite(path: Path, *statements: str) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()


def ours(path: Path, *more: str) -> None:
    """A database as the store makes it: marked, every migration applied."""
    sqlite(
        path,
        f"PRAGMA application_id = {APPLICATION_ID}",
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        *(f"INSERT INTO schema_migrations VALUES ({v}, '{n}')" for v, n, _ in MIGRATIONS),
        *more,
    )


def refused(path: Path, *words: str) -> str:
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(UnusableDatabase) as err:
        inspect(path, KNOWN)
    message = str(err.value)
    assert str(path) in message and "--data-dir" in message, message
    for word in words:
        assert word in message, message
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "inspect wrote into it"
    return message


def test_no_file_or_an_empty_one_is_a_new_database(db):
    inspect(db, KNOWN)
    db.touch()
    inspect(db, KNOWN)
    assert db.read_bytes() == b""


def test_an_empty_sqlite_file_and_ours_pass(db, tmp_path):
    sqlite(db, "PRAGMA user_version = 1")  # a valid file with no table
    inspect(db, KNOWN)
    mine = tmp_path / "mine.sqlite3"
    ours(mine, "CREATE TABLE runtime (id INTEGER)")
    inspect(mine, KNOWN)


def test_a_file_that_is_not_sqlite_is_refused(db):
    db.write_bytes(b"my diary, not a database\n" * 10)
    refused(db, "not an AntiDrift database", "not an SQLite database")


def test_a_file_marked_by_another_program_is_refused(db):
    ours(db, "PRAGMA application_id = 305419896")
    refused(db, "another program", "0x12345678")


def test_an_unmarked_file_with_foreign_tables_is_refused(db):
    sqlite(db, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('mine')")
    refused(db, "its tables are not AntiDrift's")


def test_an_unmarked_antidrift_0_2_file_passes_by_its_first_migration(db, tmp_path):
    tables = ("runtime (id INTEGER)", "commitments (id TEXT)", "samples (id INTEGER)")
    sqlite(
        db,
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "INSERT INTO schema_migrations VALUES (1, 'initial')",
        *(f"CREATE TABLE {t}" for t in tables),
    )
    inspect(db, KNOWN)
    # The same tables with another first migration are someone else's.
    other = tmp_path / "other.sqlite3"
    sqlite(
        other,
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "INSERT INTO schema_migrations VALUES (1, 'something else')",
        *(f"CREATE TABLE {t}" for t in tables),
    )
    refused(other, "its tables are not AntiDrift's")


def test_a_newer_schema_is_refused_naming_both_versions(db):
    future = max(KNOWN) + 40
    ours(db, f"INSERT INTO schema_migrations VALUES ({future}, 'future')")
    message = refused(db, "made by a newer AntiDrift", "Upgrade AntiDrift")
    assert f"schema version {future}" in message and f"up to {max(KNOWN)}" in message


def test_a_damaged_file_is_refused_with_what_quick_check_found(db):
    ours(db, "CREATE TABLE samples (id INTEGER PRIMARY KEY, body TEXT)")
    sqlite(
        db,
        "BEGIN",
        *(f"INSERT INTO samples (body) VALUES ('{'x' * 300}{i}')" for i in range(200)),
        "COMMIT",
    )
    raw = bytearray(db.read_bytes())
    page = 4096
    assert len(raw) > 10 * page
    raw[8 * page : 8 * page + 200] = b"\xa5" * 200  # scribble over one b-tree page's header
    db.write_bytes(bytes(raw))
    refused(db, "is damaged", "quick_check")


def test_damage_only_quick_check_finds_is_refused_with_what_it_found(db):
    # An index pointed at another's pages: every query above still reads the file fine.
    ours(db, "CREATE TABLE t (x TEXT)", "CREATE INDEX i ON t(x)")
    sqlite(db, *(f"INSERT INTO t VALUES ('v{n}')" for n in range(50)))
    sqlite(db, "CREATE TABLE t2 (x TEXT)", "CREATE INDEX i2 ON t2(x)")
    con = sqlite3.connect(db, isolation_level=None)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'i2'").fetchone()[0]
    con.execute("PRAGMA writable_schema = ON")
    con.execute(f"UPDATE sqlite_master SET rootpage = {root} WHERE name = 'i'")
    con.close()
    message = refused(db, "is damaged")
    assert "quick_check: *** in database main ***" in message


def test_a_file_it_cannot_read_is_refused_with_the_reason(db):
    db.mkdir()  # a real read error, even for root: a directory where the file should be
    with pytest.raises(UnusableDatabase) as err:
        inspect(db, KNOWN)
    assert str(err.value) == f"Cannot read the database {db}: Is a directory."


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_a_file_it_may_not_write_is_refused(db):
    ours(db)
    db.chmod(0o444)
    refused(db, "Cannot write the database", "chown")


def test_a_lock_held_by_another_program_is_left_to_the_caller(db):
    ours(db, "CREATE TABLE runtime (id INTEGER)")
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO runtime VALUES (1)")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            dbcheck.inspect(db, KNOWN)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
