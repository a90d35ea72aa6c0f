"""A real server whose fake claude (tests/support/fake_cli.py) also judges drift."""

from __future__ import annotations

from pathlib import Path

from tests.support.fake_cli import FakeCLI, path_with
from tests.support.fake_notify import FakeNotifier
from tests.support.server import RunningServer


def drift_server(
    folder: Path, *, test_clock: bool = False, **env: str
) -> tuple[RunningServer, FakeCLI, FakeNotifier]:
    """A real server (not started) with this fake claude and a fake notify-send (run as the
    notify command, so it gets title and body) first on its PATH, the drift guard on
    (whatever the caller's environment says), and `env` on top;
    test_clock: on the test clock (`server.clock.advance(s)` passes a grace at once)."""
    judge = FakeCLI(folder / "bin", off=("youtube",))
    notifier = FakeNotifier(folder / "bin")
    base = {"PATH": path_with(folder / "bin"), "ANTIDRIFT_AI_BACKEND": "claude"}
    base |= {"ANTIDRIFT_NOTIFY": "command", "ANTIDRIFT_NOTIFY_COMMAND": notifier.command_line()}
    server = RunningServer(folder / "data", env={**base, **env}, test_clock=test_clock)
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)  # a binary named there would bypass the fake
    server.env.pop("ANTIDRIFT_DRIFT", None)
    return server, judge, notifier
