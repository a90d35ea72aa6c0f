"""ollama and openai backends against loopback stand-ins of their wire formats: the judge,
Sharpen and Reflect go through each; the schema is sent; a garbled or slow server is a short
error; a superseded call stops waiting."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from antidrift.ai import CoachError, JudgeService, Service
from antidrift.ai.backends import Options, new_backend
from antidrift.ai.judge import VERDICT_SCHEMA
from antidrift.process import CancelScope


class ModelServer:
    """Speaks Ollama's POST /api/chat and OpenAI's POST …/chat/completions; records bodies."""

    def __init__(self) -> None:
        self.bodies: list[tuple[str, dict, dict]] = []
        self.answer = '{"verdict": "off_task", "reason": "a feed"}'
        self.raw: bytes | None = None  # answered as it is (garbled)
        self.delay = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append((self.path, body, dict(self.headers)))
                time.sleep(server.delay)
                if server.raw is not None:
                    data = server.raw
                elif self.path.endswith("/api/chat"):
                    msg = {"role": "assistant", "content": server.answer}
                    data = json.dumps({"model": body["model"], "message": msg, "done": True})
                    data = data.encode()
                else:
                    choice = {
                        "index": 0,
                        "message": {"role": "assistant", "content": server.answer},
                    }
                    data = json.dumps({"object": "chat.completion", "choices": [choice]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def server():
    s = ModelServer()
    yield s
    s.http.shutdown()
    s.http.server_close()


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
