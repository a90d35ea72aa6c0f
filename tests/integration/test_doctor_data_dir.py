"""`antidrift doctor --data-dir D` checks D's settings and D's database (SYSTEM.md, "Breaks
and the command line"), read-only: the directory is byte for byte as it was afterwards.
Issue 30, item 14."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from antidrift.server import commands
from antidrift.store import datalock
from antidrift.store.sqlite import SQLiteStore


@pytest.fixture
def doctor(tmp_path, monkeypatch, capsys):
    """Runs `antidrift doctor ARGS` here with no AI CLI on PATH and no window source;
    ANTIDRIFT_DATA_DIR names another directory, so only --data-dir can point at D."""
    empty = tmp_path / "bin"
    empty.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    (other / "settings.json").write_text(json.dumps({"enforce": "off", "drift_grace": 77}))
    for key in list(os.environ):
        if key.startswith("ANTIDRIFT_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("ANTIDRIFT_WINDOW_SOURCE", "off")
    monkeypatch.setenv("ANTIDRIFT_DATA_DIR", str(other))

    def run(*argv: str) -> tuple[int, str]:
        code = commands.main(["doctor", *argv])
        return code, capsys.readouterr().out

    return run


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _row(out: str, variable: str) -> list[str]:
    (line,) = [ln for ln in out.splitlines() if ln.startswith(f"  {variable} ")]
    return line.split()


def test_doctor_reads_the_settings_and_the_database_of_the_directory_it_is_given(tmp_path, doctor):
    data = tmp_path / "D"
    SQLiteStore(str(data / "antidrift.sqlite3")).close()
    (data / "settings.json").write_text(json.dumps({"enforce": "minimize"}))
    before = _snapshot(data)
    code, out = doctor("--data-dir", str(data))
    assert code == 0, out
    assert f"saved ones in {data / 'settings.json'}" in out
    assert _row(out, "ANTIDRIFT_ENFORCE")[1:] == ["minimize", "saved"]
    assert _row(out, "ANTIDRIFT_DRIFT_GRACE")[-1] == "default"  # not the other directory's 77
    assert f"Database {data / 'antidrift.sqlite3'}:" in out
    assert "AntiDrift's, schema version" in out and "quick_check ok" in out
    assert _snapshot(data) == before  # read only: no -wal, no -shm, not a byte written
    # Without the flag it is the environment's directory, as before.
    code, out = doctor()
    assert _row(out, "ANTIDRIFT_DRIFT_GRACE")[1:] == ["77", "saved"]
    assert "not made yet" in out


def test_doctor_refuses_what_the_start_would_and_exits_1(tmp_path, doctor):
    data = tmp_path / "D"
    data.mkdir()
    (data / "antidrift.sqlite3").write_bytes(b"not a database at all, but a note")
    before = _snapshot(data)
    code, out = doctor("--data-dir", str(data))
    assert code == 1
    assert "refused:" in out and "is not an AntiDrift database" in out
    assert _snapshot(data) == before
    (data / "antidrift.sqlite3").unlink()
    (data / "settings.json").write_text("{not json")
    code, out = doctor("--data-dir", str(data))
    assert code == 1 and "refused:" in out and str(data / "settings.json") in out


def test_doctor_refuses_a_data_directory_the_start_could_not_make(tmp_path, doctor):
    """A file where the data directory (or a folder above it) should be: the start says
    "Cannot create the data directory", so doctor must not say "the first start makes it"."""
    note = tmp_path / "notes.txt"
    note.write_text("a file, not a folder")
    for data in (note, note / "antidrift"):
        code, out = doctor("--data-dir", str(data))
        assert code == 1, data
        assert "refused:" in out and f"{note} is not a directory" in out, out
        assert "not made yet" not in out
    assert note.read_text() == "a file, not a folder"
    code, out = doctor("--data-dir", str(tmp_path / "new" / "data"))  # made at the start
    assert code == 0 and "not made yet" in out and not (tmp_path / "new").exists()


def test_doctor_reads_a_database_a_server_holds_and_says_who(tmp_path, doctor):
    data = tmp_path / "D"
    lock = datalock.acquire(data, url="http://127.0.0.1:7799/")
    store = SQLiteStore(str(data / "antidrift.sqlite3"))  # open: its -wal and -shm are there
    try:
        code, out = doctor("--data-dir", str(data))
    finally:
        store.close()
        lock.release()
    assert code == 0, out
    assert "(served by AntiDrift at http://127.0.0.1:7799/):" in out
    assert "quick_check ok" in out


def test_doctor_says_when_the_database_is_not_as_antidrift_makes_it(tmp_path, doctor):
    """Issue 41: an extra index let every Start fail while doctor said quick_check ok."""
    data = tmp_path / "D"
    SQLiteStore(str(data / "antidrift.sqlite3")).close()
    db = sqlite3.connect(data / "antidrift.sqlite3")
    db.execute("CREATE UNIQUE INDEX one_a_day ON commitments(substr(started_at, 1, 10))")
    db.close()
    code, out = doctor("--data-dir", str(data))
    assert "an index one_a_day AntiDrift did not make" in out, out
    assert "quick_check ok" not in out
