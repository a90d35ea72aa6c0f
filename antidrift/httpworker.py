"""gunicorn's gthread worker, with a deadline for reading request headers (slow clients).

gthread hands each accepted connection to a pool thread, which then blocks until the client
has sent its whole request head: a few hundred connections that never finish their headers
(slowloris, or a half-open tab) hold every thread and the server stops answering. gunicorn 27
has no setting for this, so the head is read with a socket timeout here. The app keeps the
timeout for reading a body (a slow POST is the same attack); only a websocket, which must be
able to sit idle, goes back to a blocking socket.
"""

from __future__ import annotations

import logging
import socket

from gunicorn.workers.gthread import TConn, ThreadWorker

# A browser or a local script sends its request head (and a body of at most 64 KiB) in one
# go; 10 s between two packets is generous.
HEADER_TIMEOUT = 10.0


class _QuietHeaderTimeouts(logging.Filter):
    """gunicorn logs a socket error with its traceback; a slow client is not worth one."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, socket.timeout)


class Worker(ThreadWorker):
    """gthread, where a client has HEADER_TIMEOUT seconds to send its request head."""

    def init_process(self) -> None:
        self.log.error_log.addFilter(_QuietHeaderTimeouts())
        super().init_process()

    def handle(self, conn: TConn):
        # TConn.init runs in the pool thread right before the parser reads the head (after
        # gunicorn set the socket blocking): the deadline is set there, for every request.
        def init() -> None:
            TConn.init(conn)
            conn.sock.settimeout(HEADER_TIMEOUT)

        conn.init = init
        try:
            return super().handle(conn)
        finally:
            del conn.init

    def handle_request(self, req, conn: TConn):
        if _is_websocket(req):
            conn.sock.settimeout(None)  # a page's socket may sit idle between pushes
        return super().handle_request(req, conn)


def _is_websocket(req) -> bool:
    return any(
        name == "UPGRADE" and value.strip().lower() == "websocket" for name, value in req.headers
    )
