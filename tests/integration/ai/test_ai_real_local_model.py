"""The openai backend against a real local model: llama-cpp-python's OpenAI-compatible server
serving SmolLM2-135M-Instruct (tests/support/llama_server.py; scripts/install-llama, which
.ci/run runs). One Sharpen and one judge call, end to end, check the wiring (the server
refuses json_schema, the backend asks with json_object, an answer comes back and is read)
and never the quality: a model this small answers on_task to everything."""

from __future__ import annotations

import pytest

from antidrift.ai import InvalidProposal, JudgeService, Proposal, Service
from antidrift.ai.backends import Options, new_backend
from antidrift.ai.backends.openai import FORMS, refusals
from antidrift.ai.coach import NO_PLAN
from tests.support.llama_server import LlamaServer, llama_server

# Generous: the suite's other workers share the two cores (a call takes ~0.6 s alone).
TIMEOUT = 90.0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module: loading the model is the expensive part."""
    with llama_server(tmp_path_factory.mktemp("llama")) as running:
        yield running
    refusals.forget()


def backend(server: LlamaServer):
    return new_backend("openai", Options(ai_url=server.url))


def test_the_judge_gets_a_verdict_from_the_real_model(server):
    verdict = JudgeService(backend(server), timeout=TIMEOUT).judge(
        "Write the report's introduction", "Two paragraphs in report.md", "code", "report.md"
    )
    assert verdict.verdict in ("unclear", "on_task", "off_task")
    # The real server refused json_schema naming it; the backend asked with json_object and
    # remembers that for this server and model.
    assert FORMS[refusals.first((server.url, None))] == "json_object"


def test_sharpen_gets_a_plan_or_the_refusal_from_the_real_model(server):
    try:
        proposal = Service(backend(server), timeout=TIMEOUT).coach("write the report")
    except InvalidProposal as refused:  # the model echoed the prompt's placeholder
        assert str(refused) == NO_PLAN
    else:
        assert isinstance(proposal, Proposal)
        assert isinstance(proposal.next_action, str) and proposal.next_action.strip()
