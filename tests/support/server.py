"""A real `antidrift serve` (gunicorn, one worker) on an ephemeral port, for tests and benches."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.support.hooked_serve import TestClock

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RunningServer:
    """Starts the console entry point as a user would; `stop()` sends SIGTERM."""

    def __init__(
        self,
        data_dir: Path,
        *,
        env: dict[str, str] | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        test_clock: bool = False,
        header_timeout: float | None = None,
    ) -> None:
        """Test hooks (tests/support/hooked_serve.py): test_clock, a server clock that
        `self.clock.advance(s)` moves ahead, so no test sleeps through a timebox;
        header_timeout, the seconds a client has to send its request head."""
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.log_path = Path(log_path or self.data_dir / "server.log")
        self.env = {
            **os.environ,
            "ANTIDRIFT_WINDOW_SOURCE": "off",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.proc: subprocess.Popen | None = None
        self.clock: TestClock | None = None
        hooks: list[str] = []
        if test_clock:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.clock = TestClock(self.data_dir.parent / f"{self.data_dir.name}.clock")
            hooks += ["--clock", str(self.clock.path)]
        if header_timeout is not None:
            hooks += ["--header-timeout", str(header_timeout)]
        # As a user starts it, unless a test needs a hook.
        self._entry = ["-m", "tests.support.hooked_serve", *hooks] if hooks else ["-m", "antidrift"]

    def start(self, timeout: float = 15.0) -> RunningServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 — open as long as the server runs
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *self._entry,
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
            ],
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.log()}")
            try:
                self.get("/state")
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not answer in {timeout} s: {self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def request(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, object]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                raw, status = resp.read(), resp.status
        except urllib.error.HTTPError as err:
            raw, status = err.read(), err.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def get(self, path: str) -> object:
        status, body = self.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body}")
        return body

    def post(self, path: str, body: dict | None = None) -> tuple[int, object]:
        return self.request("POST", path, body if body is not None else {})

    def ticks(self, count: int = 2, timeout: float = 10.0) -> None:
        """Return once the server's once-a-second tick has run `count` times from now (each
        tick renews every page's offline notice): what a tick would do has been done, with
        no sleep that guesses how long that takes."""
        import websocket  # websocket-client: a test dependency, not the server's

        ws = websocket.create_connection(f"{self.ws_base}/ws", timeout=timeout, origin=self.base)
        try:
            seen, deadline = -1, time.monotonic() + timeout  # the first comes on connect
            while seen < count:
                ws.settimeout(max(deadline - time.monotonic(), 0.01))
                seen += ws.recv().count('id="offline"')
        finally:
            ws.close()

    def reset(self) -> None:
        """Back to locked, whatever the state (tests share one server per module)."""
        now = self.get("/state")
        state = now["runtime_state"]
        if now.get("break"):
            self.post("/break/end")
        if state == "planning":
            self.post("/planning/cancel")
        elif state == "active":
            self.post("/finish")
            state = "review"
        if state == "review":
            self.post("/end", {"outcome": "missed", "note": "reset by test"})

    def stop(self, timeout: float = 10.0) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self._log.close()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def __enter__(self) -> RunningServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
