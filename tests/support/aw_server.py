"""A real aw-server (ActivityWatch 0.12.0, from its own venv .venv-aw made by
scripts/aw-server-venv) on a loopback port, in testing mode with in-memory storage, and the
heartbeats a window watcher would send it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from tests.support import procs
from tests.support.require import need
from tests.support.server import REPO, free_port

INSTALL = "scripts/aw-server-venv (makes .venv-aw with aw-server 0.12.0; .ci/run runs it)"


def binary() -> str | None:
    """The aw-server to test against: ANTIDRIFT_TEST_AW_SERVER, .venv-aw, or PATH."""
    named = os.environ.get("ANTIDRIFT_TEST_AW_SERVER")
    if named:
        return named if os.access(named, os.X_OK) else None
    local = REPO / ".venv-aw" / "bin" / "aw-server"
    return str(local) if local.exists() else shutil.which("aw-server")


@contextmanager
def window_server(folder: Path) -> Iterator[AwServer]:
    """A real aw-server (in memory) with the window watcher's bucket, stopped after; a
    missing one fails under ANTIDRIFT_REQUIRE_REAL and is skipped otherwise (require.need)."""
    executable = binary()
    need(executable, f"aw-server is not installed: run {INSTALL}")
    server = AwServer(folder, executable)
    try:
        server.wait_ready()
        server.create_window_bucket()
        yield server
    finally:
        server.stop()


def _call(method: str, url: str, body: object | None = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


class AwServer:
    """One aw-server process; `heartbeat()` plays aw-watcher-window."""

    def __init__(self, home: Path, executable: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.host = socket.gethostname()
        self.bucket = f"aw-watcher-window_{self.host}"
        home.mkdir(parents=True, exist_ok=True)
        env = {  # its config, logs and caches go to the test's directory, never to ~
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_STATE_HOME": str(home / "state"),
        }
        self.log = open(home / "aw-server.log", "wb")  # noqa: SIM115 — open while it runs
        argv = [executable, "--testing", "--host", "127.0.0.1", "--port", str(self.port),
                "--storage", "memory"]  # fmt: skip
        self.proc = subprocess.Popen(argv, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60.0) -> AwServer:
        deadline = time.monotonic() + timeout
        while True:
            try:
                info = _call("GET", f"{self.url}/api/0/info")
                assert info["testing"] is True
                return self
            except (urllib.error.URLError, OSError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("aw-server did not start: see aw-server.log") from None
                time.sleep(0.2)

    def create_window_bucket(self) -> None:
        _call("POST", f"{self.url}/api/0/buckets/{self.bucket}", {
            "client": "aw-watcher-window", "type": "currentwindow", "hostname": self.host,
        })  # fmt: skip

    @property
    def afk_bucket(self) -> str:
        return f"aw-watcher-afk_{self.host}"

    def create_afk_bucket(self) -> None:
        _call("POST", f"{self.url}/api/0/buckets/{self.afk_bucket}", {
            "client": "aw-watcher-afk", "type": "afkstatus", "hostname": self.host,
        })  # fmt: skip

    def reset_afk_bucket(self) -> None:
        """The afk bucket anew, empty (aw-server in testing mode deletes without asking)."""
        try:
            _call("DELETE", f"{self.url}/api/0/buckets/{self.afk_bucket}?force=1")
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise
        self.create_afk_bucket()

    def afk_ping(self, afk: bool, last_input: datetime, duration: float = 0.0) -> None:
        """One ping as aw-watcher-afk 0.12 sends it: stamped with the last input (an afk
        event's duration the seconds since), pulsetime its timeout + poll time (180 + 5)."""
        event = {"timestamp": last_input.isoformat(), "duration": duration,
                 "data": {"status": "afk" if afk else "not-afk"}}  # fmt: skip
        url = f"{self.url}/api/0/buckets/{self.afk_bucket}/heartbeat?pulsetime=185"
        _call("POST", url, event)

    def heartbeat(self, app: str, title: str, pulsetime: float = 10.0) -> None:
        """What aw-watcher-window sends every second for the focused window."""
        event = {"timestamp": datetime.now(UTC).isoformat(), "duration": 0,
                 "data": {"app": app, "title": title}}  # fmt: skip
        url = f"{self.url}/api/0/buckets/{self.bucket}/heartbeat?pulsetime={pulsetime}"
        _call("POST", url, event)

    def create_web_bucket(self, browser: str = "firefox") -> str:
        """The bucket aw-watcher-web makes in a browser: aw-watcher-web-<browser>_<host>."""
        bucket = f"aw-watcher-web-{browser}_{self.host}"
        _call("POST", f"{self.url}/api/0/buckets/{bucket}", {
            "client": "aw-client-web", "type": "web.tab.current", "hostname": self.host,
        })  # fmt: skip
        return bucket

    def tab_heartbeat(
        self, bucket: str, url: str, title: str, *, incognito: bool = False, tabs: int = 3
    ) -> None:
        """What aw-watcher-web sends for the active tab (about once a minute, and on every
        tab switch or URL change)."""
        data = {"url": url, "title": title, "audible": False, "incognito": incognito,
                "tabCount": tabs}  # fmt: skip
        event = {"timestamp": datetime.now(UTC).isoformat(), "duration": 0, "data": data}
        _call("POST", f"{self.url}/api/0/buckets/{bucket}/heartbeat?pulsetime=65", event)

    def stop(self) -> None:
        procs.stop(self.proc, within=10)
        self.log.close()
