"""ollama and openai backends against loopback stand-ins of their wire formats: the judge,
Sharpen and Reflect go through each; the schema is sent; a garbled or slow server is a short
error; a superseded call stops waiting."""

from __future__ import annotations

import json
import threading
import time

import pytest

from antidrift.ai import CoachError, JudgeService, Service
from antidrift.ai.backends import Options, new_backend
from antidrift.ai.judge import VERDICT_SCHEMA
from antidrift.process import CancelScope
from tests.support.model_server import ModelServer


@pytest.fixture
def server():
    s = ModelServer()
    yield s
    s.close()


def backend(kind: str, server: ModelServer):
    if kind == "ollama":
        return new_backend("ollama", Options(ai_model="llama3.2", ai_url=server.url))
    return new_backend("openai", Options(ai_url=server.url + "/v1", ai_key="sk-local"))


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_the_judge_goes_through_the_wire_format_with_the_schema(kind, server):
    verdict = JudgeService(backend(kind, server), timeout=5).judge("Write", "Done", "firefox", "X")
    assert (verdict.verdict, verdict.reason) == ("off_task", "a feed")
    path, body, headers = server.bodies[0]
    assert body["messages"][0]["role"] == "user" and '"firefox"' in body["messages"][0]["content"]
    if kind == "ollama":
        assert path == "/api/chat"
        assert body["model"] == "llama3.2" and body["stream"] is False
        assert body["format"] == VERDICT_SCHEMA and body["keep_alive"]
    else:
        assert path == "/v1/chat/completions"
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == VERDICT_SCHEMA and fmt["json_schema"]["name"]
        assert headers["Authorization"] == "Bearer sk-local"


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_sharpen_goes_through_each(kind, server):
    server.answer = json.dumps(
        {"next_action": "Draft the intro", "success_condition": "In the doc", "timebox_minutes": 25}
    )
    proposal = Service(backend(kind, server), timeout=5).coach("write the report")
    assert (proposal.next_action, proposal.timebox_minutes) == ("Draft the intro", 25)


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_a_garbled_or_slow_server_is_a_short_error(kind, server):
    server.raw = b"<html>not json"
    with pytest.raises(CoachError) as caught:
        JudgeService(backend(kind, server), timeout=5).judge("W", "D", "a", "t")
    assert len(str(caught.value)) < 120
    server.raw, server.delay = None, 3.0
    started = time.monotonic()
    with pytest.raises(CoachError, match="longer than 0.5 s"):
        JudgeService(backend(kind, server), timeout=0.5).judge("W", "D", "a", "t")
    assert time.monotonic() - started < 2.5


def test_a_superseded_call_stops_waiting(server):
    server.delay = 3.0
    scope = CancelScope()
    threading.Timer(0.2, scope.cancel).start()
    started = time.monotonic()
    with pytest.raises(CoachError):
        backend("ollama", server).run("hi", timeout=10, scope=scope)
    assert time.monotonic() - started < 1.5
