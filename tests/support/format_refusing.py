"""A loopback stand-in of an OpenAI-compatible server that refuses some `response_format`
types, as llama-cpp-python's server does (design NOTES, "A real local model on these
machines"): it takes `{"type": "json_object", "schema"}` and answers 500 to `json_schema`, its
error naming the field:

    500 {"error": {"message": "1 validation error: {'type': 'literal_error', 'loc': ('body',
         'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\" …",
         "type": "internal_server_error", "param": null, "code": null}}

`refuse` holds the types refused so (None stands for a call with no response_format);
`broken` makes every POST an unrelated 500 instead; `delay` holds each answer (seconds).
Every POST's (model, type) is recorded in `asked`, in order (thread-safe)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERDICT = '{"verdict": "on_task", "reason": "the editor"}'


def refusal(kind: str) -> dict:
    """llama-cpp-python 0.3.36's 500 for a response_format it does not take (its shape and
    words, as its server answered here; the traceback's file path shortened)."""
    message = (
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format',"
        " 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': "
        f"'{kind}', 'ctx': {{'expected': \"'text' or 'json_object'\"}}}}\n\n  File "
        '"…/llama_cpp/server/app.py", line 376, in create_chat_completion\n'
        "    POST /v1/chat/completions"
    )
    return {
        "error": {"message": message, "type": "internal_server_error", "param": None, "code": None}
    }


UNRELATED = {
    "error": {
        "message": "llama_decode returned -3: the KV cache is full",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


class FormatRefusingServer:
    """POST …/chat/completions: a chat completion answering `answer`, or the refusal."""

    def __init__(self, refuse: set[str | None], answer: str = VERDICT) -> None:
        self.refuse = refuse
        self.answer = answer
        self.broken = False
        self.delay = 0.0
        self.asked: list[tuple[str | None, str | None]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                kind = (body.get("response_format") or {}).get("type")
                with server._lock:
                    server.asked.append((body.get("model"), kind))
                time.sleep(server.delay)
                if server.broken:
                    self._send(500, UNRELATED)
                elif kind in server.refuse:
                    self._send(500, refusal(kind or "none"))
                else:
                    message = {"role": "assistant", "content": server.answer}
                    choice = {"index": 0, "message": message, "finish_reason": "stop"}
                    self._send(200, {"object": "chat.completion", "choices": [choice]})

            def _send(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_port}/v1"
        threading.Thread(
            target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def kinds(self) -> list[str | None]:
        """The response_format type of every POST so far, in order."""
        with self._lock:
            return [kind for _, kind in self.asked]

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
