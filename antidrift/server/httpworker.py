"""gunicorn's gthread worker, with one deadline for each request's head and body, and as many
threads as connections (slow clients).

gthread hands each accepted connection to a pool thread, which then blocks until the client
has sent its whole request head. Clients that trickle their heads a byte at a time (slowloris,
or a half-open tab) held a thread each for as long as they kept trickling, and past the
thread count the server stopped answering. gunicorn 27 has no setting for either, so:

* the request parser reads through `_Deadline`: every read is bounded by what is left of
  HEADER_TIMEOUT seconds for the whole request head and body, so a trickling client is cut
  off at that deadline however it spaces its bytes (a body that stops arriving is a 400);
* the worker takes at most as many connections as it has threads (`worker_connections` ==
  `threads`, MAX_CONNECTIONS + SPARE by default), so every accepted connection has a thread
  and a new request never queues behind slow ones. Past that, new connections wait in the
  kernel's queue until a slow one's deadline frees a place;
* its open-file limit is raised to fit them (a desktop's soft limit is often 1,024).

Only a websocket, which must be able to sit idle, goes back to a blocking socket.
"""

from __future__ import annotations

import logging
import resource
import socket
import time

from gunicorn.workers.gthread import TConn, ThreadWorker

# A browser or a local script sends its request head (and a body of at most 64 KiB) in one
# go; 10 s for all of it is generous.
HEADER_TIMEOUT = 10.0
# The connections the README promises room for, whatever they do (open tabs, scripts,
# clients that trickle), and a few more so that a new one still gets in beside them.
MAX_CONNECTIONS = 1000
SPARE = 24
THREADS = MAX_CONNECTIONS + SPARE
# File descriptors besides connections: the database, logs, pipes of the CLIs we run.
_OTHER_FILES = 256

log = logging.getLogger("antidrift")


class _QuietHeaderTimeouts(logging.Filter):
    """gunicorn logs a socket error with its traceback; a slow client is not worth one."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, socket.timeout)


class _Deadline:
    """The socket as the request parser reads it: each read may wait only for what is left
    of one deadline (and for no longer than a caller's own timeout, e.g. gunicorn's drain)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.deadline = time.monotonic() + HEADER_TIMEOUT
        self._timeout: float | None = None

    def restart(self) -> None:
        """A new request on the connection: a new deadline."""
        self.deadline = time.monotonic() + HEADER_TIMEOUT

    def recv(self, size: int) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request was not sent within its deadline")
        self.sock.settimeout(left if self._timeout is None else min(left, self._timeout))
        return self.sock.recv(size)

    def gettimeout(self) -> float | None:
        return self._timeout

    def settimeout(self, timeout: float | None) -> None:
        self._timeout = timeout

    def __getattr__(self, name: str):
        return getattr(self.sock, name)


class Worker(ThreadWorker):
    """gthread, where a request has HEADER_TIMEOUT seconds for its head and body, and every
    connection it takes has a thread."""

    def init_process(self) -> None:
        self.log.error_log.addFilter(_QuietHeaderTimeouts())
        # Never more connections than threads: a connection without a thread waits in the
        # pool's queue, and a new request with it.
        self.worker_connections = min(self.worker_connections, self.cfg.threads)
        self.worker_connections = _room_for(self.worker_connections)
        super().init_process()

    def handle(self, conn: TConn):
        # TConn.init runs in the pool thread right before the parser reads the head: the
        # deadline is put between the parser and the socket there, anew for every request.
        def init() -> None:
            TConn.init(conn)
            reader = conn.parser.unreader
            if isinstance(reader.sock, _Deadline):
                reader.sock.restart()
            else:
                reader.sock = _Deadline(conn.sock)

        conn.init = init
        try:
            return super().handle(conn)
        finally:
            del conn.init

    def handle_request(self, req, conn: TConn):
        if _is_websocket(req):
            conn.sock.settimeout(None)  # a page's socket may sit idle between pushes
        return super().handle_request(req, conn)


def _room_for(connections: int) -> int:
    """Raise the open-file limit to fit `connections`; fewer connections when it cannot be."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = connections + _OTHER_FILES
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < need:
        fitted = max(soft - _OTHER_FILES, 16)
        log.warning(
            "the open-file limit (%d) leaves room for %d connections, not %d",
            soft,
            fitted,
            connections,
        )
        return fitted
    return connections


def _is_websocket(req) -> bool:
    return any(
        name == "UPGRADE" and value.strip().lower() == "websocket" for name, value in req.headers
    )
