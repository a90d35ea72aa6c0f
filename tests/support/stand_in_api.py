"""A loopback stand-in of the Anthropic and OpenAI HTTP APIs, so the real claude and codex
binaries can be driven end to end with no network. It answers at once and records every
request body; the answer is a proposal (as a StructuredOutput tool call when claude offers
that tool, as text otherwise)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.fake_cli import DEFAULT_PROPOSAL

STRUCTURED_TOOL = "StructuredOutput"  # the tool claude adds for --json-schema


@dataclass
class Recorded:
    """One request the stand-in received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict | None


@dataclass
class Behaviour:
    """What the stand-in answers; a test may change it between calls."""

    answer: dict | str = field(default_factory=lambda: dict(DEFAULT_PROPOSAL))
    use_tool: bool = True  # answer claude's StructuredOutput tool when it is offered


def _sse(events: list[tuple[str, dict]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


def _answer_text(answer: dict | str) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer)


def _last_is_tool_result(body: dict) -> bool:
    messages = body.get("messages") or []
    if not messages:
        return False
    content = messages[-1].get("content")
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in content
    )


def _offers_tool(body: dict, name: str) -> bool:
    return any(isinstance(t, dict) and t.get("name") == name for t in body.get("tools") or [])


def _message_blocks(body: dict, behaviour: Behaviour) -> tuple[list[dict], str]:
    """The content blocks of claude's answer and its stop reason."""
    if (
        behaviour.use_tool
        and isinstance(behaviour.answer, dict)
        and _offers_tool(body, STRUCTURED_TOOL)
        and not _last_is_tool_result(body)
    ):
        block = {"type": "tool_use", "id": "toolu_01", "name": STRUCTURED_TOOL, "input": {}}
        return [dict(block, input=behaviour.answer)], "tool_use"
    if _last_is_tool_result(body):
        return [{"type": "text", "text": "Done."}], "end_turn"
    return [{"type": "text", "text": _answer_text(behaviour.answer)}], "end_turn"


def _messages_json(body: dict, behaviour: Behaviour) -> dict:
    blocks, stop = _message_blocks(body, behaviour)
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude"),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def _messages_sse(body: dict, behaviour: Behaviour) -> bytes:
    blocks, stop = _message_blocks(body, behaviour)
    start = _messages_json(body, behaviour)
    start.update(content=[], stop_reason=None)
    events: list[tuple[str, dict]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for i, block in enumerate(blocks):
        if block["type"] == "tool_use":
            opening = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": opening},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _responses_sse(body: dict, behaviour: Behaviour) -> bytes:
    text = _answer_text(behaviour.answer)
    item = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    response = {
        "id": "resp_01",
        "object": "response",
        "status": "in_progress",
        "model": body.get("model", "gpt"),
        "output": [],
    }
    done = dict(
        response,
        status="completed",
        output=[item],
        usage={"input_tokens": 10, "output_tokens": 10, "total_tokens": 20},
    )
    return _sse(
        [
            ("response.created", {"type": "response.created", "response": response}),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": dict(item, content=[], status="in_progress"),
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_01",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            ("response.completed", {"type": "response.completed", "response": done}),
        ]
    )


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a CLI that drops a connection (codex's websocket probe) is not an error here


class StandInAPI:
    """The stand-in on 127.0.0.1 and an ephemeral port; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.behaviour = Behaviour()
        # codex tries a websocket first. 426 makes it fall back to HTTP at once; a 404 (or
        # anything else) costs five reconnects with backoff, about 7 s, before the fallback.
        self.ws_status = 426
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> StandInAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def bodies(self, path: str) -> list[dict]:
        """The JSON bodies of every request to path (query string ignored)."""
        with self._lock:
            return [r.body for r in self.requests if r.path.split("?")[0] == path and r.body]

    def _record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass  # quiet: the recorded requests are the log

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                api._record(Recorded("GET", self.path, dict(self.headers), None))
                # codex may try a websocket first: refusing it makes it fall back to HTTP.
                self._send(api.ws_status, b'{"error": "not here"}', "application/json")

            def do_HEAD(self) -> None:
                api._record(Recorded("HEAD", self.path, dict(self.headers), None))
                self._send(200, b"", "text/plain")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                api._record(Recorded("POST", self.path, dict(self.headers), body))
                path = self.path.split("?")[0]
                body = body if isinstance(body, dict) else {}
                behaviour = api.behaviour
                if path.endswith("/v1/messages/count_tokens"):
                    self._send(200, b'{"input_tokens": 10}', "application/json")
                elif path.endswith("/v1/messages"):
                    if body.get("stream"):
                        self._send(200, _messages_sse(body, behaviour), "text/event-stream")
                    else:
                        data = json.dumps(_messages_json(body, behaviour)).encode()
                        self._send(200, data, "application/json")
                elif path.endswith("/responses"):
                    self._send(200, _responses_sse(body, behaviour), "text/event-stream")
                else:
                    self._send(404, b'{"error": "not here"}', "application/json")

        return Handler
