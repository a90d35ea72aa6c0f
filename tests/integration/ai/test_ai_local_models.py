"""ollama and openai backends against loopback stand-ins of their wire formats: the judge,
Sharpen and Reflect go through each; the schema is sent; a garbled or slow server is a short
error; a superseded call stops waiting."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest

from antidrift.ai import CoachError, JudgeService, Service
from antidrift.ai.backends import Options, new_backend
from antidrift.ai.judge import VERDICT_SCHEMA
from antidrift.process import CancelScope
from antidrift.server import commands
from tests.support import model_server
from tests.support.model_server import ModelServer
from tests.support.real_cli import refused_port
from tests.support.timing import assert_within


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
    assert_within(time.monotonic() - started, 2.5, "the timeout")


def test_a_superseded_call_stops_waiting(server):
    server.delay = 3.0
    scope = CancelScope()
    threading.Timer(0.2, scope.cancel).start()
    started = time.monotonic()
    with pytest.raises(CoachError):
        backend("ollama", server).run("hi", timeout=10, scope=scope)
    assert_within(time.monotonic() - started, 1.5, "the cancel")


# -- doctor: what each server says of itself -------------------------------------------------


def test_ollama_tells_its_version_and_openai_its_models(server):
    assert backend("ollama", server).version() == f"ollama {model_server.OLLAMA_VERSION}"
    assert backend("openai", server).version() == "serves " + ", ".join(model_server.MODELS)
    assert server.gets == ["/api/version", "/v1/models"]
    assert server.bodies == []  # no model was asked anything


def test_a_long_model_list_is_cut_and_control_characters_never_reach_the_terminal(
    server, monkeypatch
):
    monkeypatch.setattr(model_server, "OLLAMA_VERSION", "\x1b[31m0.7\x07 " + "9" * 100)
    monkeypatch.setattr(model_server, "MODELS", ("a", "b\x1b]0;x\x07", "c", "d", "e"))
    version = backend("ollama", server).version()
    assert version.startswith("ollama [31m0.7 999") and len(version) <= len("ollama ") + 60
    assert backend("openai", server).version() == "serves a, b]0;x, c and 2 more"


def test_a_server_that_is_not_there_has_no_version():
    started = time.monotonic()
    with refused_port() as gone:
        ollama = new_backend("ollama", Options(ai_model="m", ai_url=f"http://127.0.0.1:{gone}"))
        openai = new_backend("openai", Options(ai_url=f"http://127.0.0.1:{gone}/v1"))
        assert ollama.version() is None and openai.version() is None
    assert_within(time.monotonic() - started, 5, "a refused connection")


def test_doctor_says_what_each_local_server_is(server, monkeypatch, capsys, caplog, tmp_path):
    for name, value in {
        "ANTIDRIFT_DATA_DIR": str(tmp_path),
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "ANTIDRIFT_AI_URL": f"{server.url}/v1",
        "ANTIDRIFT_AI_MODEL": "llama3.2",
        "PATH": str(tmp_path),
    }.items():
        monkeypatch.setenv(name, value)
    commands.main(["doctor"])
    out = capsys.readouterr().out
    # ollama at <url>/v1 is no Ollama: it does not answer /api/version there.
    assert f"  ollama   {server.url}/v1 does not answer" in out
    assert f"  openai   {server.url}/v1  serves {model_server.MODELS[0]}" in out
    monkeypatch.setenv("ANTIDRIFT_AI_URL", server.url)
    commands.main(["doctor"])
    out = capsys.readouterr().out
    assert f"  ollama   {server.url}  ollama {model_server.OLLAMA_VERSION}  (llama3.2" in out
    with refused_port() as gone:
        monkeypatch.setenv("ANTIDRIFT_AI_URL", f"http://127.0.0.1:{gone}")
        commands.main(["doctor"])
    assert f"  ollama   http://127.0.0.1:{gone} does not answer" in capsys.readouterr().out
    # What doctor found is said once, in its own words: no warning for each probe.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
