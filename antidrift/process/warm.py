"""A process kept warm: started ahead of need through the seam, fed one line when there is
work, read back line by line. It starts nothing itself: `start` spawns through the seam's
`_spawn`, so it is in the running set (kill_all_running) like any call."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable

from antidrift.process import (
    _CHUNK,
    _READER_GRACE,
    _STDERR_CAP,
    CancelScope,
    Exited,
    RunCancelled,
    TimedOut,
    TooLarge,
    _Child,
    _read_pipe,
    _Sink,
    _spawn,
)

log = logging.getLogger("antidrift.process")

_EOF = b""  # what the line reader queues when stdout closes


def _read_lines(pipe, lines: queue.Queue, child: _Child, max_line: int, warm: Warm) -> None:
    # Complete lines go to the queue; a line longer than max_line kills the group (the
    # answer is dropped, as run() drops an oversized stdout). EOF is queued last.
    pending = b""
    try:
        while chunk := pipe.read(_CHUNK):
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                lines.put(line + b"\n")
            if len(pending) > max_line:
                warm.overflowed = True
                child.kill_group()
                return
    except (OSError, ValueError):
        pass
    finally:
        pipe.close()
        lines.put(_EOF)


class Warm:
    """A process started ahead of need and kept waiting for its input: a line is written
    when there is work, lines are read back until one says it is done. Its group is killed
    by stop(), by a cancel scope during an exchange, and by kill_all_running() at shutdown."""

    def __init__(self, child: _Child, name: str, max_line: int) -> None:
        self.name = name
        self.overflowed = False
        self._child, self._proc, self._max_line = child, child.proc, max_line
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._err = _Sink(_STDERR_CAP, kill_on_overflow=False)
        self._stop_lock = threading.Lock()
        self._stopped = False
        # Held for a whole exchange: taken without waiting, so a second caller is refused
        # at once instead of both writing to one stdin.
        self._turn = threading.Lock()
        self._scope: CancelScope | None = None  # the exchange's, so stop() can detach it
        self._readers = [
            threading.Thread(
                target=_read_lines,
                args=(self._proc.stdout, self._lines, child, max_line, self),
                daemon=True,
            ),
            threading.Thread(
                target=_read_pipe, args=(self._proc.stderr, self._err, child), daemon=True
            ),
        ]
        for thread in self._readers:
            thread.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def ready(self) -> bool:
        """Started, not in an exchange, not stopped, nothing unread (so stdout is open)."""
        idle = not (self._turn.locked() or self._stopped or self._child.stopped)
        return idle and self._lines.empty()

    def exchange(
        self,
        line: bytes,
        *,
        done: Callable[[bytes], bool],
        timeout: float,
        scope: CancelScope | None = None,
    ) -> list[bytes]:
        """Write one line, then read lines until done(line) is true; one exchange at a time.
        Any failure stops the process: it is never left half-way through an answer."""
        if not self._turn.acquire(blocking=False):
            raise RuntimeError("a warm process is already answering")
        try:
            if scope is not None:
                if not scope._attach(self._child):
                    self.stop()
                    raise RunCancelled(self.name)
                self._scope = scope
            try:
                return self._exchange(line, done, timeout, scope)
            finally:
                self._scope = None
                if scope is not None:
                    scope._detach(self._child)
        finally:
            self._turn.release()

    def _exchange(self, line, done, timeout, scope) -> list[bytes]:
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
        except (OSError, ValueError):
            pass  # it died: the reader's EOF below tells the story
        deadline = time.monotonic() + max(timeout, 0)
        read: list[bytes] = []
        while True:
            try:
                got = self._lines.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                self.stop()
                raise TimedOut(self.name, timeout, self._err.text()) from None
            if got == _EOF:
                self.stop()
                if (scope is not None and scope.cancelled) or self._child.stopped:
                    raise RunCancelled(self.name)
                if self.overflowed:
                    raise TooLarge(self.name, self._max_line)
                raise Exited(self.name, self._err.text())
            read.append(got)
            if done(got):
                return read

    def printed(self) -> list[bytes]:
        """The lines it printed since last asked, without waiting, for a process that speaks
        on its own (a watcher): b"" last once its stdout has closed."""
        found: list[bytes] = []
        while True:
            try:
                found.append(self._lines.get_nowait())
            except queue.Empty:
                return found

    def stderr(self) -> str:
        """What it wrote to stderr so far (capped; for the log)."""
        return self._err.text()

    def kill(self) -> None:
        """SIGKILL its process group now; stop() still reaps it."""
        self._child.kill_group()

    def stop(self) -> None:
        """Kill its process group and reap it; safe to call twice."""
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
            self._child.kill_group()
            self._child.reap(self._scope)
        with contextlib.suppress(OSError, ValueError):
            self._proc.stdin.close()
        for thread in self._readers:
            thread.join(_READER_GRACE)


def start(
    argv: list[str],
    *,
    env: dict | None = None,
    cwd: str | None = None,
    name: str = "cli",
    max_line: int = 1 << 20,
) -> Warm:
    """Start argv (never a shell) to wait for its input; see Warm."""
    log.debug("%s: starting warm %s", name, argv)
    _, child = _spawn(argv, None, env, cwd, name)
    return Warm(child, name, max_line)
