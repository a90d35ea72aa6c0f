"""A loopback HTTP stand-in whose answers a test decides (e.g. aw-server misbehaving)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StandIn:
    """One loopback HTTP server on an ephemeral port; `answer` decides what each GET or POST
    gets (`handler.reply(status, json_or_bytes, headers)`). A POST's JSON body is recorded in
    `bodies`, its headers in `headers`."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.paths: list[str] = []
        self.bodies: list[object] = []
        self.headers: list[dict[str, str]] = []
        self.answer = answer
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                stand_in.paths.append(self.path)
                stand_in.answer(self)

            def do_POST(self) -> None:  # noqa: N802
                stand_in.paths.append(self.path)
                stand_in.headers.append(dict(self.headers))
                length = int(self.headers.get("Content-Length") or 0)
                stand_in.bodies.append(json.loads(self.rfile.read(length) or b"null"))
                stand_in.answer(self)

            def reply(self, status: int, body: object, headers: dict | None = None) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
