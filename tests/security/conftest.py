"""Attack the server end to end: a real `antidrift serve`, fake CLIs, raw sockets, /proc.

Helpers live on the `sec` fixture (test dirs have no __init__.py, so conftest is not importable).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import procs
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.server import RunningServer
from tests.support.walk import server_post, walk_http

WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
PAYLOAD_SCRIPT = "<script>alert(1)</script>"
PAYLOAD_ATTR = '"><img src=x onerror=alert(1)>'


class Sec:
    """Process and socket probes shared by the security tests."""

    # -- /proc -------------------------------------------------------------------------------

    alive = staticmethod(procs.alive)

    wait_dead = staticmethod(procs.wait_dead)

    @staticmethod
    def children(pid: int) -> list[int]:
        kids: list[int] = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                kids += [int(p) for p in (task / "children").read_text().split()]
        return kids

    def worker_pid(self, server: RunningServer, within: float = 5.0) -> int:
        """The gunicorn worker: the one child of the master that runs the app."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            kids = [k for k in self.children(server.proc.pid) if self.alive(k)]
            if kids:
                return kids[0]
            time.sleep(0.05)
        raise AssertionError("no gunicorn worker")

    @staticmethod
    def status_kb(pid: int, key: str) -> int:
        """A `kB` line of /proc/<pid>/status, e.g. VmRSS or VmHWM."""
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        raise KeyError(key)

    @staticmethod
    def threads(pid: int) -> int:
        return len(os.listdir(f"/proc/{pid}/task"))

    def settled_threads(self, pid: int, *, at_most: int | None = None, within: float = 8.0) -> int:
        """The thread count once it stops changing (or drops to at_most)."""
        deadline = time.monotonic() + within
        last, stable_since = self.threads(pid), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.threads(pid)
            if at_most is not None and now <= at_most:
                return now
            if now != last:
                last, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since > 1.5:
                return now
        return self.threads(pid)

    def running(self, program: Path) -> list[int]:
        """Live processes whose command line runs program (a fake CLI script)."""
        needle = str(program).encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if needle in argv[:2] and self.alive(int(entry)):
                found.append(int(entry))
        return found

    @staticmethod
    def pids_in(path: Path) -> list[int]:
        if not path.exists():
            return []
        return [int(p) for p in path.read_text().split() if p.strip().isdigit()]

    # -- raw HTTP / websocket ----------------------------------------------------------------

    @staticmethod
    def raw(port: int, data: bytes, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
        """Send raw bytes, read one response (the server may close or keep the connection)."""
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(data)
            buf = b""
            while b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            head, _, body = buf.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            if status != 101:
                length = int(headers.get("content-length", "0"))
                while len(body) < length:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    body += chunk
            return status, headers, body

    @staticmethod
    def foreign_origins(port: int) -> list[dict[str, str]]:
        """Headers of a browser request from another origin, each to be refused (403) by
        every state-changing route and the websocket of a server on `port`."""
        return [
            {"Origin": "http://evil.com"},
            {"Origin": f"http://127.0.0.1:{port}.evil.com"},
            {"Origin": f"http://localhost:{port + 1}", "Sec-Fetch-Site": "same-site"},
            # Same host, another port: another local app is another origin (but the same
            # site to a browser, so Sec-Fetch-Site does not say cross-site).
            {"Origin": f"http://127.0.0.1:{port + 1}", "Sec-Fetch-Site": "same-site"},
            {"Origin": f"http://127.0.0.1:{port + 1}"},
            {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "cross-site"},
            {"Origin": "null"},
            {"Sec-Fetch-Site": "cross-site"},
        ]

    def http(
        self,
        port: int,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
    ) -> tuple[int, dict[str, str], bytes]:
        hdrs = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
        if body or method not in ("GET", "HEAD"):
            hdrs.setdefault("Content-Length", str(len(body)))
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
        return self.raw(port, head.encode("latin-1") + b"\r\n" + body)

    def ws_handshake(
        self,
        port: int,
        *,
        host: str | None = None,
        headers: dict[str, str] | None = None,
        path: str = "/ws",
    ) -> tuple[int, dict[str, str], bytes]:
        hdrs = {
            "Host": f"127.0.0.1:{port}" if host is None else host,
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": WS_KEY,
            "Sec-WebSocket-Version": "13",
            **(headers or {}),
        }
        head = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
        return self.raw(port, head.encode("latin-1") + b"\r\n")

    @staticmethod
    def ws(server: RunningServer, query: str = "", timeout: float = 5.0):
        """A websocket-client connection with the app's own Origin (what the page sends)."""
        import websocket

        return websocket.create_connection(
            f"{server.ws_base}/ws{query}", timeout=timeout, origin=server.base
        )

    # -- state -------------------------------------------------------------------------------

    @staticmethod
    def wait_coach(server: RunningServer, status: str, within: float = 10.0) -> dict:
        deadline = time.monotonic() + within
        state: dict = {}
        while time.monotonic() < deadline:
            state = server.get("/state")
            if (state.get("coach") or {}).get("status") == status:
                return state
            time.sleep(0.03)
        raise AssertionError(f"coach never became {status!r}: {json.dumps(state)}")

    @staticmethod
    def to_planning(server: RunningServer) -> None:
        server.reset()
        walk_http(server_post(server), "planning")

    @staticmethod
    def to_active(
        server: RunningServer,
        next_action: str = "Write the tests",
        success_condition: str = "they pass",
        minutes: int = 30,
    ) -> str:
        """From any state to a new active commitment; its id."""
        server.reset()
        plan = {"next_action": next_action, "success_condition": success_condition}
        walk_http(server_post(server), "active", **plan, timebox_minutes=minutes)
        return server.get("/state")["commitment"]["id"]


class Lab:
    """A folder with a fake `claude` first on PATH, and the servers started from it."""

    def __init__(self, root: Path, sec: Sec) -> None:
        self.root = Path(root)
        self.sec = sec
        self.bin = self.root / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.fake = FakeCLI(self.bin)
        self.servers: list[RunningServer] = []

    def write_cli(self, body: str, name: str = "claude") -> Path:
        """Replace the fake `claude` with a Python script of our own."""
        path = self.bin / name
        path.write_text(
            f"#!{sys.executable}\nimport json, os, subprocess, sys, time\n{textwrap.dedent(body)}"
        )
        path.chmod(0o755)
        return path

    def restore_fake(self) -> FakeCLI:
        """Put the configurable fake `claude` back (after write_cli replaced it)."""
        self.fake = FakeCLI(self.bin)
        return self.fake

    def start(
        self,
        env: dict[str, str] | None = None,
        data_dir: Path | None = None,
        port: int | None = None,
    ) -> RunningServer:
        server = RunningServer(
            data_dir or self.root / "data",
            env={
                "PATH": path_with(self.bin),
                "ANTIDRIFT_AI_BACKEND": "claude",
                "ANTIDRIFT_AI_TIMEOUT": "20",
                **(env or {}),
            },
            port=port,
            log_path=self.root / f"server-{len(self.servers)}.log",
        )
        self.servers.append(server)
        return server.start()

    def cleanup(self) -> None:
        """Every server, and every fake CLI pid written to a *.pids file, is gone."""
        for server in self.servers:
            if server.proc is not None and server.proc.poll() is None:
                server.stop(timeout=8)
            server.kill()
            with contextlib.suppress(Exception):
                server._log.close()
        for pidfile in self.root.glob("*.pids"):
            for pid in self.sec.pids_in(pidfile):
                if self.sec.alive(pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def sec() -> Sec:
    return Sec()


@pytest.fixture
def lab(tmp_path, sec) -> Iterator[Lab]:
    """Per test: fake CLI folder and servers, all cleaned up."""
    box = Lab(tmp_path, sec)
    yield box
    box.cleanup()


@pytest.fixture(scope="module")
def module_lab(tmp_path_factory, sec) -> Iterator[Lab]:
    """Per module, for tests that can share one server."""
    box = Lab(tmp_path_factory.mktemp("lab"), sec)
    yield box
    box.cleanup()


@pytest.fixture(scope="module")
def server(module_lab) -> RunningServer:
    """The module's one server, from its lab (a module that needs its own env defines its own)."""
    return module_lab.start()
