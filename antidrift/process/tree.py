"""Killing a child with everything below it, also what left its process group (Linux).

A program can leave the process group we start it in (`setsid`, as a notifier may do for a
helper it means to outlive it); a group kill does not reach it. On Linux the tree below the
child is read from /proc and killed too: each process is stopped before its children are
read, so nothing below can fork or reap while the tree is taken, and every signal after that
goes through a pidfd, to that very process (a pid can be reused; a pidfd cannot).

What this cannot reach: a process whose parent had already exited when the kill came (a
double-forked daemon), which the system has adopted and which is no longer below the child.
Elsewhere (macOS) only the group is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def kill_tree(root: int) -> None:
    """SIGKILL the process group `root` leads and every process still below `root`.

    `root` must be an unreaped child of ours (its pid cannot have been reused)."""
    below: list[int] = []
    try:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root, signal.SIGSTOP)  # the group forks no more while we look below it
        _stop_below(root, below)
    finally:  # whatever happened meanwhile, nothing is left stopped: everything is killed
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root, signal.SIGKILL)
        for pidfd in below:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            os.close(pidfd)


def _stop_below(root: int, found: list[int]) -> None:
    """Stop every process below `root` (a pidfd each, into `found`), parents first."""
    if not hasattr(os, "pidfd_open") or not hasattr(signal, "pidfd_send_signal"):
        return
    seen = {root}
    parents = [root]
    while parents:
        parent = parents.pop()
        # The parent is stopped: its children are fixed, and as it cannot reap them their
        # pids stay theirs while we open them.
        for pid in _children(parent):
            if pid in seen:
                continue
            seen.add(pid)
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                continue  # gone already
            if _parent_of(pid) != parent:  # not the process we read (reaped and reused)
                os.close(pidfd)
                continue
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGSTOP)
            found.append(pidfd)
            parents.append(pid)


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                kids += [int(p) for p in (task / "children").read_text().split()]
    return kids


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])
