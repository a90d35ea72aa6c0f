"""`antidrift serve` killed with SIGKILL and restarted on the same data directory loses nothing."""

from __future__ import annotations

import http.client
import sqlite3
import threading
import urllib.error
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from antidrift.store.migrations import MIGRATIONS
from tests.support.plans import plan
from tests.support.server import RunningServer

PLAN = plan(timebox_minutes=30)  # the deadline below counts 30 minutes


def database(data_dir: Path) -> Path:
    return data_dir / "antidrift.sqlite3"


def query(data_dir: Path, sql: str, *args) -> list[tuple]:
    db = sqlite3.connect(database(data_dir), timeout=5)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


class Hammer(threading.Thread):
    """Posts to the server in a loop and counts what it acknowledged, until the server dies."""

    def __init__(self, server: RunningServer, steps) -> None:
        super().__init__(daemon=True)
        self.server, self.steps = server, steps
        self.acked: list[tuple[str, dict | None]] = []
        self.started_posting = threading.Event()

    def run(self) -> None:
        try:
            while True:
                for path, body in self.steps:
                    status, _ = self.server.post(path, body)
                    if status >= 500:
                        return
                    if status < 300:
                        self.acked.append((path, body))
                    self.started_posting.set()
        except (urllib.error.URLError, http.client.HTTPException, OSError):
            return  # the server is gone (also mid-answer: IncompleteRead)


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


def start(data_dir: Path) -> RunningServer:
    return RunningServer(data_dir).start()


def test_kill_9_during_evidence_then_restart_resumes_the_same_commitment(data_dir):
    server = start(data_dir)
    try:
        server.post("/planning")
        server.post("/commitment", PLAN)
        before = server.get("/state")["commitment"]
        hammer = Hammer(server, [("/evidence/window", {"app": "code", "title": "main.py"})])
        hammer.start()
        assert hammer.started_posting.wait(5)
        while len(hammer.acked) < 20:
            hammer.join(0.01)
    finally:
        server.kill()
    hammer.join(10)
    acked = len(hammer.acked)
    again = start(data_dir)
    try:
        state = again.get("/state")
        assert state["runtime_state"] == "active"
        assert state["commitment"] == before  # same id, same deadline, same texts
        assert state["evidence"]["last"]["title"] == "main.py"
        stored = query(
            data_dir, "SELECT COUNT(*) FROM samples WHERE commitment_id = ?", before["id"]
        )
        assert stored[0][0] >= acked  # every acknowledged sample survived the kill
        assert query(data_dir, "PRAGMA integrity_check") == [("ok",)]
        # and the loop goes on from there
        assert again.post("/finish")[0] == 200
        assert again.post("/end", {"outcome": "met"})[0] == 200
        assert again.get("/history")[0]["id"] == before["id"]
    finally:
        again.stop()


def test_kill_9_during_transitions_leaves_a_consistent_state(data_dir):
    server = start(data_dir)
    steps = [
        ("/planning", {}),
        ("/commitment", PLAN),
        ("/finish", {}),
        ("/end", {"outcome": "missed", "note": "n"}),
    ]
    try:
        hammer = Hammer(server, steps)
        hammer.start()
        assert hammer.started_posting.wait(5)
        while len(hammer.acked) < 25:
            hammer.join(0.01)
    finally:
        server.kill()
    hammer.join(10)
    ends = sum(1 for path, _ in hammer.acked if path == "/end")
    again = start(data_dir)
    try:
        state = again.get("/state")
        has_commitment = state["commitment"] is not None
        assert has_commitment == (state["runtime_state"] in ("active", "review"))
        assert len(again.get("/history")) >= ends
        assert query(data_dir, "PRAGMA integrity_check") == [("ok",)]
    finally:
        again.stop()


def test_a_deadline_that_passed_while_down_is_in_review_on_startup(data_dir):
    server = start(data_dir)
    try:
        server.post("/planning")
        server.post("/commitment", PLAN)
        cid = server.get("/state")["commitment"]["id"]
    finally:
        server.kill()
    # Pretend the server was down for a day: move the commitment's times into the past.
    started = datetime.now(UTC) - timedelta(days=1)
    deadline = started + timedelta(minutes=30)
    db = sqlite3.connect(database(data_dir))
    db.execute(
        "UPDATE commitments SET started_at = ?, deadline = ? WHERE id = ?",
        (started.isoformat(), deadline.isoformat(), cid),
    )
    db.commit()
    db.close()
    again = start(data_dir)
    try:
        state = again.get("/state")
        assert state["runtime_state"] == "review"
        assert state["commitment"]["id"] == cid
        [(ended_at,)] = query(data_dir, "SELECT ended_at FROM commitments WHERE id = ?", cid)
        assert datetime.fromisoformat(ended_at) == deadline
        assert again.post("/end", {"outcome": "missed"})[0] == 200
        [item] = again.get("/history")
        assert datetime.fromisoformat(item["ended_at"]) == deadline
    finally:
        again.stop()


def test_a_clean_restart_keeps_state_history_and_records_migrations(data_dir):
    server = start(data_dir)
    try:
        server.post("/planning")
        server.post("/commitment", {**PLAN, "next_action": "First"})
        server.post("/finish")
        server.post("/end", {"outcome": "met", "note": "kept"})
        server.post("/planning")
    finally:
        assert server.stop() == 0
    again = start(data_dir)
    try:
        assert again.get("/state")["runtime_state"] == "planning"
        assert again.get("/state")["coach"]["status"] == "idle"
        [item] = again.get("/history")
        assert (item["next_action"], item["note"]) == ("First", "kept")
    finally:
        again.stop()
    rows = query(data_dir, "SELECT version, name FROM schema_migrations ORDER BY version")
    assert rows == [(v, n) for v, n, _ in MIGRATIONS]
    assert query(data_dir, "PRAGMA journal_mode") == [("wal",)]


def test_kill_9_while_the_day_is_lined_up_keeps_every_acknowledged_item(data_dir):
    """The day's queue under SIGKILL: adds, moves and clears hammered at the server until it
    dies; after a restart the queue holds every item whose add was answered since the last
    answered clear (at most the one in flight beside them), each once, in a readable order."""
    server = start(data_dir)
    acked: list[tuple[str, str]] = []  # ("add", text) | ("clear", "")
    sent: list[str] = []
    started = threading.Event()

    def hammer() -> None:
        n = 0
        try:
            while True:
                n += 1
                text = f"Item {n}"
                if n % 12 == 0:
                    status, _ = server.post("/day/clear", {})
                    if status < 300:
                        acked.append(("clear", ""))
                    continue
                sent.append(text)
                status, _ = server.post("/day/items", {"next_action": text})
                if status >= 500:
                    return
                if status < 300:
                    acked.append(("add", text))
                if n % 5 == 0:
                    server.post("/day/items/x/move", {"to": "0"})  # refused: a 404, harmless
                started.set()
        except (urllib.error.URLError, http.client.HTTPException, OSError):
            return

    worker = threading.Thread(target=hammer, daemon=True)
    try:
        worker.start()
        assert started.wait(5)
        while len(acked) < 40:
            worker.join(0.01)
    finally:
        server.kill()
    worker.join(10)
    last_clear = max((i for i, (kind, _) in enumerate(acked) if kind == "clear"), default=-1)
    expected = [text for kind, text in acked[last_clear + 1 :] if kind == "add"]
    again = start(data_dir)
    try:
        queued = [item["next_action"] for item in again.get("/day.json")["items"]]
        assert len(queued) == len(set(queued)) <= 50
        assert set(expected) <= set(queued) <= set(expected) | set(sent[-1:])
        assert query(data_dir, "PRAGMA integrity_check") == [("ok",)]
    finally:
        again.stop()
