"""The real codex 0.171.0, driven by AntiDrift, against the stand-in of POST /v1/responses."""

from __future__ import annotations

import json

from antidrift.ai import CodexBackend, Proposal, Service
from tests.support import real_cli
from tests.support.fake_cli import DEFAULT_PROPOSAL

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
