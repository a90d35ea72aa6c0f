"""Pause across a restart, end to end: the real `antidrift serve` (its test clock moved on
instead of waiting) and the real `antidrift pause / status / resume` command line."""

from __future__ import annotations

import json
import re
from datetime import datetime

from tests.support.command import antidrift
from tests.support.plans import plan
from tests.support.server import RunningServer

PLAN = plan(timebox_minutes=30)  # "Paused · 29:59" below


def test_a_paused_commitment_stays_paused_across_a_restart_and_resumes_where_it_stood(tmp_path):
    data = tmp_path / "data"
    server = RunningServer(data, test_clock=True).start()
    try:
        server.post("/planning")
        assert server.post("/commitment", PLAN)[0] == 200
        server.clock.advance(60)
        paused = antidrift("pause", "--data-dir", str(data))
        assert paused.returncode == 0, paused.stderr
        assert re.fullmatch(r"Paused · 2[89]:\d\d · Write the intro\n", paused.stdout)
        bar = json.loads(antidrift("status", "--format", "waybar", "--data-dir", str(data)).stdout)
        assert bar["class"] == "paused" and bar["text"].startswith("Paused ")
        before = server.get("/state")
        assert before["paused"] is True
    finally:
        server.stop()

    # Down for two hours, far past the deadline; the new server's clock says so.
    again = RunningServer(data, test_clock=True)
    again.clock.advance(60 + 2 * 3600)
    again.start()
    try:
        again.ticks(2)  # the once-a-second expiry check has run: it ended nothing
        state = again.get("/state")
        assert state["runtime_state"] == "active" and state["paused"] is True
        assert state["paused_secs"] >= 2 * 3600
        assert state["drift"]["status"] == "paused"
        assert state["commitment"]["deadline"] == before["commitment"]["deadline"]
        status = antidrift("status", "--data-dir", str(data))
        assert status.stdout == paused.stdout  # the same time left, standing still
        resumed = antidrift("resume", "--data-dir", str(data))
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == paused.stdout.removeprefix("Paused · ")
        state = again.get("/state")
        moved = datetime.fromisoformat(state["commitment"]["deadline"]) - datetime.fromisoformat(
            before["commitment"]["deadline"]
        )
        # Moved by the pause exactly; paused_secs counts it in whole seconds.
        assert state["paused"] is False and round(moved.total_seconds()) == state["paused_secs"]
        assert state["paused_secs"] >= 2 * 3600
        refused = antidrift("resume", "--data-dir", str(data))
        assert refused.returncode == 2 and "not paused" in refused.stderr
    finally:
        again.stop()
