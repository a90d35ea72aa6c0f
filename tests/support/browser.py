"""What the browser tests share beyond their fixtures (tests/browser/conftest.py)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.fake_cli import FakeCLI, path_with
from tests.support.fake_judge import drift_server
from tests.support.fake_notify import FakeNotifier
from tests.support.server import RunningServer

# Debian's Chromium, and how every test starts it (the session's browser, and a persistent
# context of its own where a test needs one). The session's browser is Chromium's headless
# shell (Debian's chromium-headless-shell: the same engine without the browser's own UI) where
# it is installed: it renders the pages at half the CPU, and the browser tests were most of
# the suite's time (docs/BENCHMARKS.md). What only the whole browser does (installing the page
# as an app, fetching a tab's icon for its tab strip) is checked in `chromium` itself.
CHROMIUM = shutil.which("chromium")
HEADLESS_SHELL = shutil.which("chromium-headless-shell") or CHROMIUM
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


@contextlib.contextmanager
def drift_app(tmp: Path, grace: object = 1) -> Iterator[App]:
    """A module's server on the test clock, its fake claude also the judge (titles with
    "youtube" are off task), a fake notify-send, a grace of `grace` s and a cooldown of 1 s;
    started, and stopped after."""
    server, fake, notifier = drift_server(
        tmp, test_clock=True, ANTIDRIFT_DRIFT_GRACE=str(grace), ANTIDRIFT_DRIFT_COOLDOWN="1"
    )
    with server:
        yield App(server, fake, tmp, notifier)


@contextlib.contextmanager
def history_app(tmp: Path) -> Iterator[App]:
    """A module's server over the history already written in tmp/data, a fake claude first on
    its PATH; started, and stopped after."""
    fake = FakeCLI(tmp / "bin")
    with RunningServer(tmp / "data", env={"PATH": path_with(tmp / "bin")}) as server:
        yield App(server, fake, tmp)
