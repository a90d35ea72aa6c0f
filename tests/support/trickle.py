"""Hostile listeners: a fake aw-server that trickles its answer byte by byte (status line and
headers included), and a listener that only records who connects."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

# What the trickling server sends, a byte at a time: a real aw-server's answer to /api/0/info.
ANSWER = (
    b"HTTP/1.1 200 OK\r\nServer: Werkzeug/2.3.7 Python/3.11\r\nContent-Type: application/json"
    b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
)


class Listener:
    """A TCP listener on (host, ephemeral port) that records the time of each connection;
    `serve(conn)` decides what a connection gets (default: held open, nothing said)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(64)
        self.host, self.port = host, self.sock.getsockname()[1]
        netloc = f"[{host}]" if ":" in host else host
        self.url = f"http://{netloc}:{self.port}"
        self.contacts: list[float] = []  # time.monotonic() of each accepted connection
        self.contacted = threading.Event()
        self._closed = threading.Event()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def serve(self, conn: socket.socket) -> None:
        self._closed.wait()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.contacts.append(time.monotonic())
            self.contacted.set()
            self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            self.serve(conn)

    def close(self) -> None:
        self._closed.set()
        self.sock.close()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class TricklingServer(Listener):
    """Reads the request, then sends ANSWER one byte every `every` seconds: each read gets
    something, so only a deadline on the whole answer ends it. `every * len(ANSWER)` is the
    time the whole answer takes (10 s by default)."""

    def __init__(self, every: float | None = None, host: str = "127.0.0.1") -> None:
        self.every = every if every is not None else 10.0 / len(ANSWER)
        super().__init__(host)

    def serve(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        conn.recv(65536)
        for byte in ANSWER:
            if self._closed.wait(self.every):
                return
            conn.sendall(bytes([byte]))


def non_loopback_address() -> str | None:
    """An address of this machine that is not loopback (None when it has none): a URL
    pointing there could be contacted without leaving the machine, so a test can see it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: picks a route, sends nothing
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address
