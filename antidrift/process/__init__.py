"""The one subprocess seam: every process AntiDrift starts (coach and judge CLIs, window
probes, notifiers) runs here, in its own process group, bounded in time and output, killable
through a cancel scope or all at once at shutdown. `warm` keeps one started ahead of need.

It imports nothing of the app: its errors say what happened to the process, and each caller
(ai/, evidence, notify) turns them into sentences for people.

The rule that keeps the user's other programs safe: a child's process group is signalled
only before the child is reaped. Once reaped its pid (the group id) may be reused by any
program; so a child leaves every registry (the running set, its cancel scope) before it is
reaped, and `_Child.kill_group` refuses once reaping has begun."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from antidrift.process.tree import kill_tree

if TYPE_CHECKING:  # loaded with the first process started (issue 40: the footprint)
    import subprocess

log = logging.getLogger("antidrift.process")


class ProcessError(Exception):
    """A process could not run to its end; `name` says which program."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


class ProgramMissing(ProcessError):
    """The program does not exist or may not be executed."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"{name} is not installed")


class StartFailed(ProcessError):
    """The program exists but could not be started (e.g. too many processes)."""

    def __init__(self, name: str, reason: str = "") -> None:
        super().__init__(name, f"{name} could not be started{': ' + reason if reason else ''}")


class TimedOut(ProcessError):
    """The program did not finish in time; its whole process group was killed."""

    def __init__(self, name: str, seconds: float, stderr: str = "") -> None:
        super().__init__(name, f"{name} timed out after {seconds:g} s")
        self.seconds, self.stderr = seconds, stderr


class TooLarge(ProcessError):
    """The program wrote more than the cap to stdout; its whole process group was killed."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(name, f"{name} wrote more than {limit} bytes")
        self.limit = limit


class Exited(ProcessError):
    """A kept-warm process ended before it answered."""

    def __init__(self, name: str, stderr: str = "") -> None:
        super().__init__(name, f"{name} exited before it answered")
        self.stderr = stderr


class RunCancelled(ProcessError):
    """The call was cancelled (its scope, or server shutdown); the process group was killed."""

    def __init__(self, name: str = "process") -> None:
        super().__init__(name, f"{name} was cancelled")


_CHUNK = 64 * 1024
# stderr is only ever logged, so a small cap is enough; it is still drained past the cap so
# a chatty CLI cannot block on a full stderr pipe.
_STDERR_CAP = 64 * 1024
# After the main child exits (or was killed) its group is killed; pipes then reach EOF at
# once. This grace only matters for a process that left the group (setsid) and kept a pipe.
_READER_GRACE = 0.5


@dataclass(frozen=True)
class Result:
    """What a finished process left behind."""

    stdout: str
    stderr: str
    returncode: int


_registry_lock = threading.Lock()
_running: dict[int, _Child] = {}


@dataclass(eq=False)
class _Child:
    """One started process; its group may be signalled until, and only until, it is reaped."""

    proc: subprocess.Popen
    stopped: bool = False  # set by kill_all_running: the call ends as RunCancelled
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _reaping: bool = False

    def kill_group(self) -> None:
        """SIGKILL its process group and what is below it (tree.py), unless it is being (or
        has been) reaped."""
        # The group id is the child's pid (start_new_session). Under the lock, so reap()
        # cannot begin between the check and the signal: the pid is still ours here.
        with self._lock:
            if self._reaping:
                return
            kill_tree(self.proc.pid)

    def reap(self, scope: CancelScope | None = None) -> int:
        """Leave every registry, then reap; from here on nothing signals its group."""
        # While unreaped the pid is reserved, so the entry under it is this one.
        with _registry_lock:
            _running.pop(self.proc.pid, None)
        if scope is not None:
            scope._detach(self)
        with self._lock:
            self._reaping = True
        return self.proc.wait()


def kill_all_running() -> int:
    """SIGKILL the process group of every running CLI (server shutdown); returns how many."""
    with _registry_lock:
        entries = list(_running.values())
        for entry in entries:
            entry.stopped = True
            entry.kill_group()
    return len(entries)


class CancelScope:
    """Cancels one call (a Sharpen, a judge): kills every process attached to it, now and
    later, and cuts short any other work registered with stopping() (an HTTP request)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._children: set[_Child] = set()
        self._stops: dict[object, Callable[[], None]] = {}

    @property
    def cancelled(self) -> bool:
        """Whether cancel() was called."""
        return self._cancelled

    def cancel(self) -> None:
        """Kill the process group of every attached process and stop every registered call;
        later attaches fail."""
        with self._lock:
            self._cancelled = True
            for child in list(self._children):
                child.kill_group()
            for stop in list(self._stops.values()):
                with contextlib.suppress(Exception):  # one failing stop must not spare the rest
                    stop()

    @contextlib.contextmanager
    def stopping(self, stop: Callable[[], None], name: str = "call") -> Iterator[None]:
        """While inside, cancel() also calls stop(): how work that is no process (an HTTP
        request: shut its socket down) is cut short. Raises RunCancelled at once when the scope
        is already cancelled. stop() runs on the cancelling thread, never after the block is
        left, and must not call back into this scope."""
        token = object()
        with self._lock:
            if self._cancelled:
                raise RunCancelled(name)
            self._stops[token] = stop
        try:
            yield
        finally:
            with self._lock:
                del self._stops[token]

    def _attach(self, child: _Child) -> bool:
        with self._lock:
            if self._cancelled:
                return False
            self._children.add(child)
            return True

    def _detach(self, child: _Child) -> None:
        with self._lock:
            self._children.discard(child)


@dataclass(eq=False)
class _Sink:
    """Bytes read from one pipe, stored up to a cap."""

    cap: int
    kill_on_overflow: bool
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    overflowed: bool = False

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")


def _read_pipe(pipe, sink: _Sink, child: _Child) -> None:
    # The reader owns its pipe and closes it: closing an fd another thread is blocked on
    # could let the fd number be reused under that thread.
    try:
        while chunk := pipe.read(_CHUNK):
            room = sink.cap - sink.size
            if len(chunk) > room:
                sink.chunks.append(chunk[: max(room, 0)])
                sink.size = sink.cap
                sink.overflowed = True
                if sink.kill_on_overflow:
                    child.kill_group()
                    return
                continue  # keep draining, store nothing more
            sink.chunks.append(chunk)
            sink.size += len(chunk)
    except (OSError, ValueError):
        pass
    finally:
        pipe.close()


def _write_stdin(pipe, data: bytes) -> None:
    # In its own thread so a CLI that never reads stdin cannot deadlock us on a full pipe.
    try:
        pipe.write(data)
    except (OSError, ValueError):
        pass  # the CLI exited or closed stdin early; its exit status tells the story
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _wait_exit(child: _Child, exited: threading.Event) -> None:
    # The fallback where there is no pidfd (macOS, Linux before 5.3).
    # WNOWAIT: learn that the child exited without reaping it, so the group can still be
    # killed safely (the pid stays reserved until it is reaped). os.waitid is missing on
    # macOS before Python 3.13; there the only way to learn of the exit is to reap, and then
    # the group is left alone: a grandchild may outlive the call rather than a reused pid's
    # group being killed.
    try:
        if hasattr(os, "waitid"):
            os.waitid(os.P_PID, child.proc.pid, os.WEXITED | os.WNOWAIT)
        else:
            child.reap()
    except (ChildProcessError, OSError):
        pass
    finally:
        exited.set()


def _open_pidfd(proc: subprocess.Popen) -> int | None:
    # A pidfd becomes readable when the child exits, without reaping it (like WNOWAIT): the
    # calling thread waits on it directly, with no waiter thread to hand the news over.
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(proc.pid)
    except OSError:  # Linux before 5.3, or a sandbox that forbids it
        return None


def _wait_pidfd(pidfd: int, timeout: float) -> bool:
    """Whether the child exited within timeout (inf: no limit)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    if math.isinf(timeout):
        while not poller.poll():
            pass
        return True
    deadline = time.monotonic() + max(timeout, 0)
    while True:
        left = deadline - time.monotonic()
        if poller.poll(max(left, 0) * 1000):
            return True
        if left <= 0:
            return False


def _spawn(argv, scope, env, cwd, name) -> tuple[subprocess.Popen, _Child]:
    import subprocess  # at the first process: an idle server with no coach starts none

    # Spawning under the registry lock means kill_all_running() cannot miss a process that
    # was started but not yet registered.
    with _registry_lock:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
                env=env,
                cwd=cwd,
            )
        except (FileNotFoundError, PermissionError) as err:
            log.warning("%s: cannot execute %s: %s", name, argv[0], err)
            raise ProgramMissing(name) from err
        except OSError as err:
            log.warning("%s: cannot start %s: %s", name, argv[0], err)
            raise StartFailed(name, err.strerror or "") from err
        child = _Child(proc)
        _running[proc.pid] = child
    if scope is not None and not scope._attach(child):
        child.kill_group()
    return proc, child


def run(
    argv: list[str],
    stdin: str = "",
    *,
    timeout: float,
    scope: CancelScope | None = None,
    max_output: int = 1 << 20,
    env: dict | None = None,
    cwd: str | None = None,
    name: str = "cli",
) -> Result:
    """Run argv (never a shell) with `stdin` written to it and closed; return its bounded,
    decoded output. Raises a ProcessError subclass; a non-zero exit is the caller's to judge."""
    if scope is not None and scope.cancelled:
        raise RunCancelled(name)
    data = stdin.encode("utf-8", errors="replace")  # a lone surrogate must not crash us
    log.debug("%s: running %s", name, argv)
    proc, child = _spawn(argv, scope, env, cwd, name)
    out = _Sink(max_output, kill_on_overflow=True)
    err = _Sink(_STDERR_CAP, kill_on_overflow=False)
    exited = threading.Event()
    pidfd = _open_pidfd(proc)
    threads = [
        threading.Thread(target=_write_stdin, args=(proc.stdin, data), daemon=True),
        threading.Thread(target=_read_pipe, args=(proc.stdout, out, child), daemon=True),
        threading.Thread(target=_read_pipe, args=(proc.stderr, err, child), daemon=True),
    ]
    if pidfd is None:
        threads.append(threading.Thread(target=_wait_exit, args=(child, exited), daemon=True))
    try:
        for thread in threads:
            thread.start()
        if pidfd is not None:
            timed_out = not _wait_pidfd(pidfd, timeout)
        else:
            timed_out = not exited.wait(None if math.isinf(timeout) else max(timeout, 0))
    finally:
        if pidfd is not None:
            os.close(pidfd)
        # Always: take down grandchildren that may still hold the pipes, then reap.
        child.kill_group()
        returncode = child.reap(scope)
    for thread in threads[1:3]:
        thread.join(_READER_GRACE)

    if (scope is not None and scope.cancelled) or child.stopped:
        raise RunCancelled(name)
    if out.overflowed:
        log.debug("%s: stdout exceeded %d bytes; killed", name, max_output)
        raise TooLarge(name, max_output)
    if timed_out:
        # Logged by the caller, which knows whether this is news (a probe times out often).
        raise TimedOut(name, timeout, err.text())
    return Result(out.text(), err.text(), returncode)
