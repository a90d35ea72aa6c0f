"""Process probes shared by the suites that check a CLI (and its children) are gone."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Running: neither gone nor a zombie waiting for its reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in ("Z", "X")


def wait_dead(pid: int, within: float = 3.0) -> bool:
    """Poll until pid is no longer running; True if that happened within the time."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


def stop(proc: subprocess.Popen, within: float = 5.0) -> None:
    """End a helper process a test started: SIGTERM, then SIGKILL if it lingers; reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(within)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def children(pid: int) -> list[int]:
    """The running direct children of pid, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


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
        return not alive(pid)

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

    def kill_left(self) -> None:
        """SIGKILL every tracked pid still alive (teardown)."""
        for pid in self.pids:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
