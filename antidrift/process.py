"""The one subprocess seam: every process AntiDrift starts (coach and judge CLIs, window
probes, notifiers) runs here, in its own process group, bounded in time and output, killable
through a cancel scope or all at once at shutdown.

It imports nothing of the app: its errors say what happened to the process, and each caller
(ai/, evidence, notify) turns them into sentences for people."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import queue
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("antidrift.process")


class ProcessError(Exception):
    """A process could not run to its end; `name` says which program."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


class NotFound(ProcessError):
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


class Cancelled(ProcessError):
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


@dataclass(eq=False)
class _Running:
    proc: subprocess.Popen
    stopped: bool = False  # set by kill_all_running: the call ends as Cancelled


_registry_lock = threading.Lock()
_running: dict[int, _Running] = {}


def _kill_group(proc: subprocess.Popen) -> None:
    # The group id is the child's pid (start_new_session). Only called before the child is
    # reaped, so the pid (and with it the group id) cannot have been reused.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def kill_all_running() -> int:
    """SIGKILL the process group of every running CLI (server shutdown); returns how many."""
    with _registry_lock:
        entries = list(_running.values())
        for entry in entries:
            entry.stopped = True
            _kill_group(entry.proc)
    return len(entries)


class CancelScope:
    """Cancels one call (a Sharpen, a judge): kills every process attached to it, now and
    later."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._procs: set[subprocess.Popen] = set()

    @property
    def cancelled(self) -> bool:
        """Whether cancel() was called."""
        return self._cancelled

    def cancel(self) -> None:
        """Kill the process group of every attached process; later attaches fail."""
        with self._lock:
            self._cancelled = True
            procs = list(self._procs)
            for proc in procs:
                _kill_group(proc)

    def _attach(self, proc: subprocess.Popen) -> bool:
        with self._lock:
            if self._cancelled:
                return False
            self._procs.add(proc)
            return True

    def _detach(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)


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


def _read_pipe(pipe, sink: _Sink, proc: subprocess.Popen) -> None:
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
                    _kill_group(proc)
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


def _wait_exit(proc: subprocess.Popen, exited: threading.Event) -> None:
    # The fallback where there is no pidfd (macOS, Linux before 5.3).
    # WNOWAIT: learn that the child exited without reaping it, so the group can still be
    # killed safely (the pid stays reserved until proc.wait() reaps it). os.waitid is missing
    # on macOS before Python 3.13; there we reap here and accept a tiny pid-reuse window.
    try:
        if hasattr(os, "waitid"):
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        else:
            proc.wait()
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


def _spawn(argv, scope, env, cwd, name) -> tuple[subprocess.Popen, _Running]:
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
            raise NotFound(name) from err
        except OSError as err:
            log.warning("%s: cannot start %s: %s", name, argv[0], err)
            raise StartFailed(name, err.strerror or "") from err
        entry = _Running(proc)
        _running[proc.pid] = entry
    if scope is not None and not scope._attach(proc):
        _kill_group(proc)
    return proc, entry


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
        raise Cancelled(name)
    data = stdin.encode("utf-8", errors="replace")  # a lone surrogate must not crash us
    log.debug("%s: running %s", name, argv)
    proc, entry = _spawn(argv, scope, env, cwd, name)
    out = _Sink(max_output, kill_on_overflow=True)
    err = _Sink(_STDERR_CAP, kill_on_overflow=False)
    exited = threading.Event()
    pidfd = _open_pidfd(proc)
    threads = [
        threading.Thread(target=_write_stdin, args=(proc.stdin, data), daemon=True),
        threading.Thread(target=_read_pipe, args=(proc.stdout, out, proc), daemon=True),
        threading.Thread(target=_read_pipe, args=(proc.stderr, err, proc), daemon=True),
    ]
    if pidfd is None:
        threads.append(threading.Thread(target=_wait_exit, args=(proc, exited), daemon=True))
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
        _kill_group(proc)
        returncode = proc.wait()
        with _registry_lock:
            _running.pop(proc.pid, None)
        if scope is not None:
            scope._detach(proc)
    for thread in threads[1:3]:
        thread.join(_READER_GRACE)

    if (scope is not None and scope.cancelled) or entry.stopped:
        raise Cancelled(name)
    if out.overflowed:
        log.debug("%s: stdout exceeded %d bytes; killed", name, max_output)
        raise TooLarge(name, max_output)
    if timed_out:
        # Logged by the caller, which knows whether this is news (a probe times out often).
        raise TimedOut(name, timeout, err.text())
    return Result(out.text(), err.text(), returncode)


# -- a process kept warm -----------------------------------------------------------------------

_EOF = b""  # what the line reader queues when stdout closes


def _read_lines(pipe, lines: queue.Queue, proc: subprocess.Popen, max_line: int, warm) -> None:
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
                _kill_group(proc)
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

    def __init__(self, proc: subprocess.Popen, entry: _Running, name: str, max_line: int):
        self.name = name
        self.overflowed = False
        self._proc, self._entry, self._max_line = proc, entry, max_line
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._err = _Sink(_STDERR_CAP, kill_on_overflow=False)
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._busy = False
        self._readers = [
            threading.Thread(
                target=_read_lines,
                args=(proc.stdout, self._lines, proc, max_line, self),
                daemon=True,
            ),
            threading.Thread(target=_read_pipe, args=(proc.stderr, self._err, proc), daemon=True),
        ]
        for thread in self._readers:
            thread.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def ready(self) -> bool:
        """Started, not in an exchange, not stopped, nothing unread (so stdout is open)."""
        return not (self._busy or self._stopped or self._entry.stopped) and self._lines.empty()

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
        if self._busy:
            raise RuntimeError("a warm process is already answering")
        self._busy = True
        if scope is not None and not scope._attach(self._proc):
            self.stop()
            raise Cancelled(self.name)
        try:
            return self._exchange(line, done, timeout, scope)
        finally:
            self._busy = False
            if scope is not None:
                scope._detach(self._proc)

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
                if (scope is not None and scope.cancelled) or self._entry.stopped:
                    raise Cancelled(self.name)
                if self.overflowed:
                    raise TooLarge(self.name, self._max_line)
                raise Exited(self.name, self._err.text())
            read.append(got)
            if done(got):
                return read

    def stderr(self) -> str:
        """What it wrote to stderr so far (capped; for the log)."""
        return self._err.text()

    def kill(self) -> None:
        """SIGKILL its process group now; stop() still reaps it."""
        with self._stop_lock:
            if not self._stopped:
                _kill_group(self._proc)

    def stop(self) -> None:
        """Kill its process group and reap it; safe to call twice."""
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
            _kill_group(self._proc)
            self._proc.wait()
            with _registry_lock:
                _running.pop(self._proc.pid, None)
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
    proc, entry = _spawn(argv, None, env, cwd, name)
    return Warm(proc, entry, name, max_line)
