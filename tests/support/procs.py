"""Process probes shared by the suites that check a CLI (and its children) are gone."""

from __future__ import annotations

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
