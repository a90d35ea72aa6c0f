"""The real codex 0.171.0, driven by AntiDrift, against the stand-in of POST /v1/responses."""

from __future__ import annotations

import json

import pytest

from antidrift.ai import PROPOSAL_SCHEMA, CLIOffline, CodexBackend, Proposal, Service
from tests.support import real_cli
from tests.support.fake_cli import DEFAULT_PROPOSAL
from tests.support.settings import backend_from_env

RESPONSES = "/v1/responses"


def test_the_installed_codex_is_the_pinned_release(codex_bin):
    assert CodexBackend(codex_bin).version() == f"codex-cli {real_cli.CODEX_VERSION}"


def test_a_sharpen_reaches_the_stand_in_and_comes_back_as_a_proposal(codex_bin, stand_in):
    proposal = Service(CodexBackend(codex_bin), timeout=60).coach("write the Q3 report")
    assert proposal == Proposal(
        DEFAULT_PROPOSAL["next_action"],
        DEFAULT_PROPOSAL["success_condition"],
        DEFAULT_PROPOSAL["timebox_minutes"],
    )
    (body,) = stand_in.bodies(RESPONSES)
    assert '\\"write the Q3 report\\"' in json.dumps(body["input"], ensure_ascii=False)
    # Native structured output: --output-schema travels as a strict text.format.
    assert body["text"]["format"]["type"] == "json_schema"
    assert body["text"]["format"]["schema"] == PROPOSAL_SCHEMA


def test_codex_keeps_its_model_at_low_effort_by_default(codex_bin, stand_in):
    argv = backend_from_env("codex", {"ANTIDRIFT_CODEX_BIN": codex_bin}).args(codex_bin, "/o")
    assert "-m" not in argv and "model_reasoning_effort=low" in argv
    Service(backend_from_env("codex", {"ANTIDRIFT_CODEX_BIN": codex_bin})).coach("x")
    (body,) = stand_in.bodies(RESPONSES)
    assert body["reasoning"]["effort"] == "low"


def test_the_chosen_model_and_effort_reach_the_request(codex_bin, stand_in):
    env = {
        "ANTIDRIFT_CODEX_BIN": codex_bin,
        "ANTIDRIFT_AI_MODEL": "gpt-5.5",
        "ANTIDRIFT_AI_EFFORT": "medium",
    }
    Service(backend_from_env("codex", env)).coach("x")
    (body,) = stand_in.bodies(RESPONSES)
    assert body["model"] == "gpt-5.5"
    assert body["reasoning"]["effort"] == "medium"


def test_codex_retrying_for_the_network_says_it_cannot_reach_its_service(
    codex_bin, dead_port, tmp_path
):
    # Pointed at a port nothing listens on, codex 0.171.0 retries for good; when the
    # timeout ends it, its "waiting for network" on stderr names the cause.
    dead = real_cli.codex_wrapper(
        tmp_path / "dead-bin", real_cli.binary("codex"), f"http://127.0.0.1:{dead_port}"
    )
    with pytest.raises(CLIOffline) as err:
        Service(CodexBackend(str(dead)), timeout=15).coach("x")
    assert str(err.value) == "codex can't reach its service — check your connection"
