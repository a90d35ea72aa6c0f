"""A real `antidrift serve` on a local model server (loopback stand-ins of Ollama's and an
OpenAI-compatible API): the review's Reflect goes through each; an AI URL on another machine
refuses the start in one line unless allowed, and once allowed the active view says where
window titles go (and Reflect does go there)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from antidrift.ai.reflect import REFLECTION_SCHEMA
from tests.fakes import wait_until
from tests.support.model_server import ModelServer, env_for
from tests.support.server import REPO, RunningServer, free_port
from tests.support.trickle import non_loopback_address
from tests.support.walk import server_post, walk_http

REFLECTION = "You finished early. Plan 20 minutes for the next one."


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def reflect_through(server: RunningServer, model: ModelServer) -> str:
    """Walk to review, press Reflect, return the review as it reads once the answer is in."""
    walk_http(server_post(server), "review")
    before = len(model.bodies)
    status, _ = server.post("/reflect")
    assert status == 200
    wait_until(
        lambda: (
            'data-status="ready"' in server.get("/") or 'data-status="error"' in server.get("/")
        ),
        timeout=15,
        message="the reflection never came",
    )
    assert len(model.bodies) == before + 1
    return server.get("/")


@pytest.fixture
def model():
    made = ModelServer()
    made.answer = json.dumps({"reflection": REFLECTION})
    yield made
    made.close()


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_the_reviews_reflect_goes_through_the_local_model(kind, model, tmp_path):
    model.raw = b"<html>502 Bad Gateway</html>"  # first a garbled answer: a sentence
    with RunningServer(tmp_path / "data", env=env_for(kind, model)) as server:
        page = reflect_through(server, model)
        shown = text_of(page)
        assert 'data-status="error"' in page and "Reflect again" in shown
        assert "502 Bad Gateway" not in shown and "<html>" not in page.split('id="reflection"')[1]
        model.raw = None
        assert server.post("/reflect")[0] == 200
        wait_until(lambda: 'data-status="ready"' in server.get("/"), timeout=15)
        page = server.get("/")
    assert f"Coach {REFLECTION}" in text_of(page)
    path, body, headers = model.bodies[-1]
    prompt = body["messages"][0]["content"]
    assert '"Write the intro"' in prompt and '"Intro in the doc"' in prompt  # the plan, quoted
    if kind == "ollama":
        assert path == "/api/chat" and body["model"] == "llama3.2" and body["stream"] is False
        assert body["format"] == REFLECTION_SCHEMA
    else:
        assert path == "/v1/chat/completions" and headers["Authorization"] == "Bearer sk-local"
        schema = body["response_format"]["json_schema"]
        assert schema["schema"] == REFLECTION_SCHEMA and schema["strict"] is True


@pytest.fixture
def elsewhere():
    """A model server on an address of this machine that is not loopback: "another machine"
    as the settings see it, reached without leaving this one."""
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    made = ModelServer(host=address)
    made.answer = json.dumps({"reflection": REFLECTION})
    yield made
    made.close()


def test_an_ai_url_off_this_machine_refuses_the_start_in_one_line(elsewhere, tmp_path):
    env = {**env_for("openai", elsewhere), "ANTIDRIFT_WINDOW_SOURCE": "off"}
    started = time.monotonic()
    ran = subprocess.run(
        [sys.executable, "-m", "antidrift", "serve", "--port", str(free_port()),
         "--data-dir", str(tmp_path / "data")],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=30,
    )  # fmt: skip
    assert ran.returncode != 0
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert "ANTIDRIFT_AI_URL=" in lines[0] and elsewhere.url in lines[0]
    assert "is not on this machine" in lines[0] and "ANTIDRIFT_AI_ALLOW_REMOTE=1" in lines[0]
    assert time.monotonic() - started < 15
    assert elsewhere.bodies == [] and elsewhere.gets == []  # nothing was sent there


def test_once_allowed_the_page_says_where_window_titles_go(elsewhere, tmp_path):
    env = {**env_for("openai", elsewhere), "ANTIDRIFT_AI_ALLOW_REMOTE": "1"}
    where = elsewhere.url.removeprefix("http://")  # host:port
    with RunningServer(tmp_path / "data", env=env) as server:
        assert f"window titles leave this machine: they go to {where}" in server.log().lower()
        walk_http(server_post(server), "active")
        active = text_of(server.get("/"))
        assert f"Window titles leave this machine: they go to {where}." in active
        assert "ANTIDRIFT_" not in active
        server.post("/finish")
        before = len(elsewhere.bodies)
        server.post("/reflect")
        wait_until(lambda: len(elsewhere.bodies) > before, timeout=15)  # and they do go there
