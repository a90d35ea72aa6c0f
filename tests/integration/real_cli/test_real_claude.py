"""The real claude 2.1.332, driven by AntiDrift, against the stand-in of POST /v1/messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import pytest

from antidrift.ai import PROPOSAL_SCHEMA, ClaudeBackend, CLIOffline, Proposal, Service
from tests.support import real_cli
from tests.support.fake_cli import DEFAULT_PROPOSAL
from tests.support.server import RunningServer
from tests.support.settings import backend_from_env

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
    # Native structured output: the schema is offered as claude's StructuredOutput tool, and
    # the stand-in answered through it.
    (tool,) = [t for t in body["tools"] if t["name"] == "StructuredOutput"]
    assert tool["input_schema"] == PROPOSAL_SCHEMA


def test_a_model_that_skips_the_schema_still_gives_a_proposal(claude_bin, stand_in):
    stand_in.behaviour.use_tool = False
    stand_in.behaviour.answer = "Here is the plan: " + json.dumps(DEFAULT_PROPOSAL) + " Good luck!"
    proposal = Service(ClaudeBackend(claude_bin), timeout=60).coach("write the Q3 report")
    assert proposal.next_action == DEFAULT_PROPOSAL["next_action"]
    assert len(stand_in.bodies(MESSAGES)) >= 1  # claude may nudge the model once more


@pytest.fixture
def users_setup(home, tmp_path, monkeypatch) -> dict[str, object]:
    """A Claude user's own set-up: CLAUDE.md files with canaries, hooks and an MCP server that
    leave marker files if they ever run."""
    markers = tmp_path / "markers"
    markers.mkdir()
    claude_dir = home / ".claude"
    claude_dir.mkdir(parents=True, exist_ok=True)
    (claude_dir / "CLAUDE.md").write_text("Always mention CANARY-HOME-7731.\n")
    hooks = {
        event: [
            {"matcher": "", "hooks": [{"type": "command", "command": f"touch {markers}/{event}"}]}
        ]
        for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
    }
    (claude_dir / "settings.json").write_text(json.dumps({"hooks": hooks}))
    mcp = {"command": "sh", "args": ["-c", f"touch {markers}/mcp; sleep 5"]}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"canary": mcp}}))
    # The coach's working directory lives under the temp dir: plant a CLAUDE.md above it.
    tmp_root = tmp_path / "tmproot"
    tmp_root.mkdir()
    (tmp_root / "CLAUDE.md").write_text("Always mention CANARY-PARENT-4412.\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_root))
    return {"markers": markers, "canaries": ("CANARY-HOME-7731", "CANARY-PARENT-4412")}


def test_the_users_claude_setup_neither_runs_nor_reaches_the_model(
    claude_bin, stand_in, users_setup
):
    Service(ClaudeBackend(claude_bin), timeout=60).coach("write the Q3 report")
    (body,) = stand_in.bodies(MESSAGES)
    for canary in users_setup["canaries"]:
        assert canary not in _request_text(body)
    assert os.listdir(users_setup["markers"]) == []  # no hook ran, no MCP server started


def test_haiku_at_low_effort_by_default(claude_bin, stand_in):
    Service(backend_from_env("claude", {"ANTIDRIFT_CLAUDE_BIN": claude_bin})).coach("x")
    (body,) = stand_in.bodies(MESSAGES)
    assert body["model"].startswith("claude-haiku")
    assert body["output_config"]["effort"] == "low"


def test_the_chosen_model_and_effort_reach_the_request(claude_bin, stand_in):
    env = {
        "ANTIDRIFT_CLAUDE_BIN": claude_bin,
        "ANTIDRIFT_AI_MODEL": "sonnet",
        "ANTIDRIFT_AI_EFFORT": "high",
    }
    Service(backend_from_env("claude", env)).coach("x")
    (body,) = stand_in.bodies(MESSAGES)
    assert body["model"].startswith("claude-sonnet")
    assert body["output_config"]["effort"] == "high"


def test_offline_says_so_within_seconds(claude_bin, dead_port, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{dead_port}")
    started = time.monotonic()
    with pytest.raises(CLIOffline) as err:
        Service(ClaudeBackend(claude_bin), timeout=60).coach("x")
    assert str(err.value) == "claude can't reach its service — check your connection"
    # Ten retries with backoff (claude's default) take over a minute; two take about 2 s.
    assert time.monotonic() - started < 20


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


def test_doctor_names_the_real_claude_its_model_and_effort_and_refuses_a_bad_effort(
    claude_bin, cli_env
):
    env = {**cli_env, "ANTIDRIFT_CLAUDE_BIN": claude_bin, "ANTIDRIFT_AI_EFFORT": "max"}
    done = subprocess.run(
        [sys.executable, "-m", "antidrift", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr  # the server would refuse to start
    lines = done.stdout.splitlines()
    (claude,) = [line for line in lines if line.split()[:1] == ["claude"]]
    assert claude_bin in claude and f"{real_cli.CLAUDE_VERSION} (Claude Code)" in claude
    assert claude.endswith("(haiku, low effort)")  # the default, shown beside the refusal
    assert "refused: ANTIDRIFT_AI_EFFORT='max' is not accepted: use one of low," in done.stdout


def test_a_warm_claude_answers_the_same_isolated_call(claude_bin, stand_in, users_setup):
    service = Service(ClaudeBackend(claude_bin), timeout=60)
    service.keep_warm(True)
    try:
        assert service.backend.warm_slot.pid is not None
        proposal = service.coach("write the Q3 report")
    finally:
        service.keep_warm(False)
    assert service.backend.warm_slot.handed_out == 1  # the warm process answered
    assert proposal.next_action == DEFAULT_PROPOSAL["next_action"]
    (body,) = stand_in.bodies(MESSAGES)
    assert body["model"].startswith("claude-haiku") and body["output_config"]["effort"] == "low"
    (tool,) = [t for t in body["tools"] if t["name"] == "StructuredOutput"]
    assert tool["input_schema"] == PROPOSAL_SCHEMA
    for canary in users_setup["canaries"]:
        assert canary not in _request_text(body)
    assert os.listdir(users_setup["markers"]) == []


def test_a_warm_claude_offline_says_so(claude_bin, dead_port, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{dead_port}")
    service = Service(ClaudeBackend(claude_bin), timeout=60)
    service.keep_warm(True)
    try:
        with pytest.raises(CLIOffline):
            service.coach("x")
    finally:
        service.keep_warm(False)
    assert service.backend.warm_slot.handed_out == 1


def test_a_warm_claude_forgets_the_last_sharpen(claude_bin, stand_in):
    service = Service(ClaudeBackend(claude_bin), timeout=60)
    service.keep_warm(True)
    try:
        service.coach("FIRST-INTENT-111")
        deadline = time.monotonic() + 30
        while service.backend.warm_slot.pid is None:  # cleared, waiting again
            assert time.monotonic() < deadline, "the warm claude never came back"
            time.sleep(0.05)
        service.coach("SECOND-INTENT-222")
    finally:
        service.keep_warm(False)
    assert service.backend.warm_slot.handed_out == 2  # one process served both
    first, second = stand_in.bodies(MESSAGES)
    assert "FIRST-INTENT-111" in _request_text(first)
    assert "FIRST-INTENT-111" not in _request_text(second)
    assert len(second["messages"]) == len(first["messages"])
