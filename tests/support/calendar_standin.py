"""A loopback stand-in of a calendar server (Google's or Outlook's secret iCal address) over
HTTPS with a self-signed certificate (github_standin.make_certificate): one path per fault.

    /cal.ics       the calendar `files["/cal.ics"]` holds (any path in `files` works)
    /slow.ics      headers at once, then the body a byte every `trickle` seconds
    /hang.ics      accepts and never answers
    /stall.ics     headers and a first line at once, a second `stall` seconds on, then silence
    /big.ics       6 MB of calendar (no Content-Length: the reader must count)
    /to-http.ics   302 to the same calendar over plain http
    /to-https.ics  302 to /cal.ics over https (Outlook moves its addresses so)
    /gone.ics      404
    /slow-headers.ics  a header line every `trickle` seconds, never the end of them
    /elsewhere.ics     302 to the same path on another port of this machine
    /to-localhost.ics  302 to /cal.ics under another name of this machine (localhost)
    /short.ics     says 1000 bytes, sends 10, closes
    /not-http.ics  answers a line that is no HTTP status
    /to-odd-http.ics  302 to plain http on a host name with a control character
"""

from __future__ import annotations

import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class CalendarStandIn:
    def __init__(self, cert: Path, key: Path) -> None:
        self.cert = cert
        self.files: dict[str, bytes] = {}
        self.requests: list[str] = []
        self.trickle = 0.2
        self.stall = 0.7
        self._stop = threading.Event()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                stand_in.requests.append(path)
                if path in stand_in.files:
                    return self._reply(200, stand_in.files[path])
                if path == "/slow.ics":
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    for _ in range(100000):
                        if stand_in._stop.wait(stand_in.trickle):
                            return
                        try:
                            self.wfile.write(b"X")
                            self.wfile.flush()
                        except OSError:
                            return
                if path == "/stall.ics":
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    try:
                        self.wfile.write(b"BEGIN:VCALENDAR\r\n")
                        self.wfile.flush()
                        if stand_in._stop.wait(stand_in.stall):
                            return
                        self.wfile.write(b"VERSION:2.0\r\n")
                        self.wfile.flush()
                    except OSError:
                        return
                    stand_in._stop.wait(30)
                    return
                if path == "/slow-headers.ics":
                    self.send_response(200)
                    for n in range(100000):
                        if stand_in._stop.wait(stand_in.trickle):
                            return
                        try:
                            self.send_header(f"X-Slow-{n}", "x")
                            self.flush_headers()
                        except OSError:
                            return
                if path in ("/elsewhere.ics", "/to-localhost.ics"):
                    port = stand_in.server.server_port
                    there = (
                        f"https://127.0.0.1:{port + 1}/cal.ics"
                        if path == "/elsewhere.ics"
                        else f"https://localhost:{port}/cal.ics"
                    )
                    self.send_response(302)
                    self.send_header("Location", there)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if path == "/short.ics":
                    self.send_response(200)
                    self.send_header("Content-Length", "1000")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(b"BEGIN:VCAL")
                    self.close_connection = True
                    return
                if path == "/not-http.ics":
                    self.wfile.write(b"HELLO THERE\r\n\r\n")
                    self.close_connection = True
                    return
                if path == "/to-odd-http.ics":
                    self.send_response(302)
                    self.send_header("Location", "http://a\x07b.example/cal.ics")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if path == "/hang.ics":
                    stand_in._stop.wait(30)
                    return
                if path == "/big.ics":
                    self.send_response(200)
                    self.send_header("Connection", "close")
                    self.end_headers()
                    line = b"X-FILLER:" + b"x" * 1014 + b"\r\n"
                    try:
                        self.wfile.write(b"BEGIN:VCALENDAR\r\n")
                        for _ in range(6 * 1024):
                            self.wfile.write(line)
                    except OSError:
                        pass
                    return
                if path in ("/to-http.ics", "/to-https.ics"):
                    scheme = "http" if path == "/to-http.ics" else "https"
                    self.send_response(302)
                    self.send_header("Location", f"{scheme}://{stand_in.host}/cal.ics")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self._reply(404, b"not found")

            def _reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/calendar; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.host = f"127.0.0.1:{self.server.server_port}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def url(self, path: str) -> str:
        return f"https://{self.host}{path}"

    def client_context(self) -> ssl.SSLContext:
        """What a client trusts to reach this stand-in (its certificate alone)."""
        return ssl.create_default_context(cafile=str(self.cert))

    def close(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


def elapsed(run) -> tuple[object, float]:
    """What `run()` returned or raised, and how long it took."""
    started = time.monotonic()
    try:
        result = run()
    except Exception as exc:  # the test looks at which
        result = exc
    return result, time.monotonic() - started
