"""Time away end to end: the real `antidrift serve` on an ephemeral port reading a real
aw-server, whose window and afk buckets the test feeds as aw-watcher-window and
aw-watcher-afk do. Away: /state says so, no window is recorded; back: the page asks, and
Count it as a pause moves the deadline."""

from __future__ import annotations

import time
import urllib.request
from datetime import UTC, datetime, timedelta

from tests.support.server import RunningServer

PLAN = {"next_action": "Write the intro", "success_condition": "Intro done", "timebox_minutes": 30}


def wait_for(server: RunningServer, check, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = server.get("/state")
        if check(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"never came: {state}\n{server.log()}")
        time.sleep(0.1)


def test_away_and_back_through_the_real_server_and_aw_server(tmp_path, aw):
    aw.create_afk_bucket()
    env = {
        "ANTIDRIFT_WINDOW_SOURCE": "activitywatch",
        "ANTIDRIFT_AW_URL": aw.url,
        "ANTIDRIFT_SAMPLE_INTERVAL": "0.2",
        "ANTIDRIFT_AWAY_AFTER": "3",
        "ANTIDRIFT_DRIFT": "off",
    }
    server = RunningServer(tmp_path / "data", env=env, test_clock=True).start()
    try:
        aw.heartbeat("code", "intro.md — editor")
        server.post("/planning")
        assert server.post("/commitment", PLAN)[0] == 200
        wait_for(server, lambda s: (s["evidence"]["last"] or {}).get("app") == "code")
        deadline = server.get("/state")["commitment"]["deadline"]
        # Five minutes into the commitment (the server's clock moved on: the start itself was
        # the user at the keyboard), input stopped 250 s ago (the afk bucket was empty: no
        # event, no idle time until now): aw-watcher-afk has turned afk, stamped then.
        server.clock.advance(300)
        stopped = datetime.now(UTC) - timedelta(seconds=250)
        aw.afk_ping(False, stopped)
        aw.afk_ping(True, stopped, duration=250)
        away = wait_for(server, lambda s: s["away"])
        assert away["drift"]["status"] == "away" and away["away_secs"] >= 0
        aw.heartbeat("firefox", "a video")  # the window watcher still reports a window
        time.sleep(1.0)  # five samples' worth
        assert server.get("/state")["evidence"]["last"]["app"] == "code"  # none recorded
        with urllib.request.urlopen(server.base + "/", timeout=10) as page:
            assert "<title>Away · " in page.read().decode()
        # Back at the keyboard.
        back = datetime.now(UTC)
        aw.afk_ping(True, back)
        aw.afk_ping(False, back)
        returned = wait_for(server, lambda s: not s["away"])
        # Away from the commitment's start (input had stopped before it) until now.
        assert returned["away_returned_secs"] == returned["away_secs"] > 0
        with urllib.request.urlopen(server.base + "/", timeout=10) as page:
            html = page.read().decode()
        assert 'id="away-return"' in html and "You were away" in html
        status, body = server.post("/away/credit")
        assert status == 200 and body["paused_secs"] == returned["away_secs"]
        moved = datetime.fromisoformat(body["commitment"]["deadline"])
        assert moved - datetime.fromisoformat(deadline) == timedelta(seconds=body["paused_secs"])
        assert server.post("/away/credit")[0] == 409
    finally:
        server.stop()
