"""A fake desktop notifier (`notify-send`, `osascript` or any name) on a temp PATH that
records every call's arguments, so tests see exactly what a notification would have shown."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.fake_cli import FakeCLI


class FakeNotifier:
    """One fake notifier script; `calls()` is the argv (without the program) of each call."""

    def __init__(self, folder: Path, name: str = "notify-send") -> None:
        self.cli = FakeCLI(folder, name)
        self.path = self.cli.path
        self.log = Path(folder) / f"{name}.calls"
        self.pidfile = Path(folder) / f"{name}.pids"
        self.configure()

    def configure(self, *, delay: float = 0.0, exit: int = 0, stderr: str = "") -> None:
        self.cli.configure(
            answer="",
            delay=delay,
            exit=exit,
            stderr=stderr,
            log_argv=str(self.log),
            pidfile=str(self.pidfile),
        )

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def command_line(self) -> str:
        """ANTIDRIFT_NOTIFY_COMMAND for this fake, shaped as notify-send would be run with
        title and body: `auto` now sends the body over D-Bus (or not at all), and the tests
        that read it from the fake must not depend on whether their machine has a bus."""
        return f"'{self.path}' --app-name=AntiDrift --"

    def stdins(self) -> list[str]:
        """What each call read on stdin."""
        return [call["stdin"] for call in self.cli.calls()]

    def pids(self) -> list[int]:
        if not self.pidfile.exists():
            return []
        return [int(line) for line in self.pidfile.read_text().split()]
