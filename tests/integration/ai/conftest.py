"""Fake CLI executables on a temp PATH, and helpers to check that processes are gone."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.procs import alive as pid_alive
from tests.support.procs import wait_dead

# Every fake starts with these: the fakes are Python scripts run by this very interpreter.
PRELUDE = "import json, os, subprocess, sys, time\n"


@pytest.fixture
def fake_bin(tmp_path, monkeypatch) -> Path:
    """An empty dir that is the WHOLE PATH, so no real claude or codex can ever run."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", str(bindir))
    for key in ("CODEX_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return bindir


@pytest.fixture
def write_cli(fake_bin) -> Callable[[str, str], Path]:
    """write_cli(name, body): an executable Python script called name on the fake PATH."""

    def write(name: str, body: str) -> Path:
        path = fake_bin / name
        path.write_text(f"#!{sys.executable}\n{PRELUDE}{textwrap.dedent(body)}")
        path.chmod(0o755)
        return path

    return write


class Procs:
    """Checks that processes are gone; kills any a test registered and left alive."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    def track(self, pid: int) -> int:
        """Remember pid so teardown kills it if the code under test did not."""
        self.pids.append(pid)
        return pid

    @staticmethod
    def is_dead(pid: int) -> bool:
        """Gone, or a zombie waiting for a reaper that is not us."""
        return not pid_alive(pid)

    def wait_dead(self, pid: int, within: float = 2.0) -> bool:
        """Poll until pid is dead; True if it died within the time."""
        return wait_dead(pid, within)

    @staticmethod
    def wait_for_file(path: Path, within: float = 5.0) -> str:
        """The content of path once a fake has written it (non-empty)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if path.exists() and (text := path.read_text()).strip():
                return text
            time.sleep(0.01)
        raise AssertionError(f"{path.name} was never written")


@pytest.fixture
def procs():
    """A Procs helper; tracked pids still alive at teardown are SIGKILLed."""
    helper = Procs()
    yield helper
    for pid in helper.pids:
        if not helper.is_dead(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
