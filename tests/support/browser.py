"""What the browser tests share beyond their fixtures (tests/browser/conftest.py)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.support.fake_cli import FakeCLI
from tests.support.fake_notify import FakeNotifier
from tests.support.server import RunningServer

# Debian's Chromium, and how every test starts it (the session's browser, and a persistent
# context of its own where a test needs one).
CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class App:
    """The module's server, the fake claude it runs and the fake notify-send it notifies by."""

    server: RunningServer
    fake: FakeCLI
    tmp: Path
    notifier: FakeNotifier | None = None

    @property
    def base(self) -> str:
        return self.server.base

    def state(self) -> str:
        return self.server.get("/state")["runtime_state"]

    def window(self, app: str, title: str) -> None:
        """The watcher reports `app` focused with `title` (as a sampler would)."""
        status, _ = self.server.post("/evidence/window", {"app": app, "title": title})
        assert status == 202
