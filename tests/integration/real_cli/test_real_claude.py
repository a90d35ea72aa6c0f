"""The real claude 2.1.332, driven by AntiDrift, against the stand-in of POST /v1/messages."""

from __future__ import annotations

import json
import time

from antidrift.ai import ClaudeBackend, Proposal, Service
from tests.support import real_cli
from tests.support.fake_cli import DEFAULT_PROPOSAL
from tests.support.server import RunningServer

MESSAGES = "/v1/messages"


def _request_text(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


def test_the_installed_claude_is_the_pinned_release(claude_bin):
    assert ClaudeBackend(claude_bin).version() == f"{real_cli.CLAUDE_VERSION} (Claude Code)"


def test_a_sharpen_reaches_the_stand_in_and_comes_back_as_a_proposal(claude_bin, stand_in):
    proposal = Service(ClaudeBackend(claude_bin), timeout=60).coach("write the Q3 report")
    assert proposal == Proposal(
        DEFAULT_PROPOSAL["next_action"],
        DEFAULT_PROPOSAL["success_condition"],
        DEFAULT_PROPOSAL["timebox_minutes"],
    )
    (body,) = stand_in.bodies(MESSAGES)
    assert '\\"write the Q3 report\\"' in _request_text(body)
    assert body["stream"] is True


def test_sharpen_on_a_running_server_fills_the_proposal(claude_bin, cli_env, stand_in, tmp_path):
    env = {**cli_env, "ANTIDRIFT_AI_BACKEND": "claude", "ANTIDRIFT_CLAUDE_BIN": claude_bin}
    with RunningServer(tmp_path / "data", env=env) as server:
        assert server.post("/planning")[0] == 200
        assert server.post("/coach", {"intent": "plan the offsite"})[0] == 200
        deadline = time.monotonic() + 60
        while (coach := server.get("/state").get("coach", {})).get("status") == "pending":
            assert time.monotonic() < deadline, "the coach never answered"
            time.sleep(0.05)
    assert coach == {
        "status": "ready",
        "proposal": {
            "next_action": DEFAULT_PROPOSAL["next_action"],
            "success_condition": DEFAULT_PROPOSAL["success_condition"],
            "timebox_secs": DEFAULT_PROPOSAL["timebox_minutes"] * 60,
        },
    }
    (body,) = stand_in.bodies(MESSAGES)
    assert '\\"plan the offsite\\"' in _request_text(body)
