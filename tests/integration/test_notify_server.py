"""A real `antidrift serve` speaks through the configured notifier, and runs without one."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

from tests.fakes import wait_until
from tests.support.fake_notify import FakeNotifier
from tests.support.plans import plan
from tests.support.server import RunningServer

PLAN = plan(next_action="Write the intro; $(rm -rf ~)")  # said as text, never run


def test_a_timebox_that_ran_out_is_one_notification_through_the_command(tmp_path):
    fake = FakeNotifier(tmp_path / "bin", "my-notifier")
    env = {
        "ANTIDRIFT_NOTIFY": "command",
        "ANTIDRIFT_NOTIFY_COMMAND": f"'{fake.path}' --from antidrift",
    }
    data = tmp_path / "data"
    server = RunningServer(data, env=env).start()
    try:
        server.post("/planning")
        assert server.post("/commitment", PLAN)[0] == 200
        cid = server.get("/state")["commitment"]["id"]
    finally:
        server.stop()
    assert fake.calls() == []  # started and stopped: nothing ran out
    # The timebox ran out while the server was down: the restart moves it to review, once.
    past = datetime.now(UTC) - timedelta(minutes=5)
    db = sqlite3.connect(data / "antidrift.sqlite3")
    db.execute(
        "UPDATE commitments SET started_at = ?, deadline = ? WHERE id = ?",
        ((past - timedelta(minutes=30)).isoformat(), past.isoformat(), cid),
    )
    db.commit()
    db.close()
    again = RunningServer(data, env=env).start()
    try:
        assert again.get("/state")["runtime_state"] == "review"
        calls = wait_until(fake.calls, 10.0, 0.05, "the notifier never ran")
        again.ticks(2)  # ticks after it: still one
        assert fake.calls() == calls
        [argv] = calls
        assert argv[:2] == ["--from", "antidrift"]
        title, body = argv[-2:]
        assert "Time's up" in title
        assert PLAN["next_action"] in body
    finally:
        again.stop()


def test_without_a_notifier_the_server_says_so_once_and_works(tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    server = RunningServer(tmp_path / "data", env={"PATH": str(empty)}).start()
    try:
        assert server.post("/planning")[0] == 200
        assert server.post("/commitment", PLAN)[0] == 200
        assert server.post("/finish")[0] == 200
    finally:
        server.stop()
    lines = [line for line in server.log().splitlines() if "no desktop notifications" in line]
    assert len(lines) == 1, server.log()
    assert "notify-send" in lines[0]
