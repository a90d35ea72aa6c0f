"""A loopback stand-in of a local model server: Ollama's chat API and an OpenAI-compatible
chat completions API, answering in exactly their wire formats (see the adapters' docstrings,
antidrift/ai/backends/ollama.py and openai.py, for the shapes and their sources).

    POST /api/chat            → {"model", "created_at", "message": {"role", "content"}, "done"}
    POST …/chat/completions   → {"object": "chat.completion", "choices": [{"index",
                                 "message": {"role", "content"}, "finish_reason"}]}
    GET  /api/version         → {"version"}                       (Ollama)
    GET  …/models             → {"object": "list", "data": [{"id", "object": "model"}]}

The answer's content is `answer` (text, or a function of the prompt, so a test can script
one answer per situation); `delay` (seconds, or a function of the prompt) holds each answer;
`raw` is sent as it is instead (a garbled server). Every POST is recorded in `bodies`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OLLAMA_VERSION = "0.6.2"
MODELS = ("qwen2.5-7b-instruct",)


class ModelServer:
    """Speaks Ollama's POST /api/chat and OpenAI's POST …/chat/completions; records bodies."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        """On `host` (loopback unless a test needs an address of this machine that is not)."""
        self.bodies: list[tuple[str, dict, dict]] = []
        self.answer: str | Callable[[str], str] = '{"verdict": "off_task", "reason": "a feed"}'
        self.raw: bytes | None = None  # answered as it is (garbled)
        self.delay: float | Callable[[str], float] = 0.0
        self.gets: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.gets.append(self.path)
                if self.path == "/api/version":
                    self._send(200, {"version": OLLAMA_VERSION})
                elif self.path.endswith("/models"):
                    data = [{"id": m, "object": "model", "owned_by": "local"} for m in MODELS]
                    self._send(200, {"object": "list", "data": data})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.bodies.append((self.path, body, dict(self.headers)))
                prompt = body["messages"][-1]["content"]
                delay = server.delay(prompt) if callable(server.delay) else server.delay
                time.sleep(delay)
                if server.raw is not None:
                    self._send(200, server.raw)
                    return
                answer = server.answer(prompt) if callable(server.answer) else server.answer
                message = {"role": "assistant", "content": answer}
                if self.path.endswith("/api/chat"):
                    self._send(
                        200,
                        {
                            "model": body["model"],
                            "created_at": "2026-01-01T00:00:00Z",
                            "message": message,
                            "done": True,
                        },
                    )
                elif self.path.endswith("/chat/completions"):
                    choice = {"index": 0, "message": message, "finish_reason": "stop"}
                    self._send(200, {"object": "chat.completion", "choices": [choice]})
                else:
                    self._send(404, {"error": "not found"})

            def _send(self, status: int, body: object) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test): nothing to answer

            def log_message(self, *args) -> None:
                pass

        self.http = ThreadingHTTPServer((host, 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://{host}:{self.http.server_port}"
        threading.Thread(
            target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def prompts(self) -> list[str]:
        """The prompt of every POST so far, in order."""
        with self._lock:
            return [body["messages"][-1]["content"] for _, body, _ in self.bodies]

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def env_for(kind: str, server: ModelServer) -> dict[str, str]:
    """The ANTIDRIFT_* variables that point the `kind` backend (ollama or openai) at it."""
    if kind == "ollama":
        return {
            "ANTIDRIFT_AI_BACKEND": "ollama",
            "ANTIDRIFT_AI_URL": server.url,
            "ANTIDRIFT_AI_MODEL": "llama3.2",
        }
    return {
        "ANTIDRIFT_AI_BACKEND": "openai",
        "ANTIDRIFT_AI_URL": f"{server.url}/v1",
        "ANTIDRIFT_AI_KEY": "sk-local",
    }
