"""WS /ws: one loop per open page, sending what the hub queued for it."""

from __future__ import annotations

import contextlib
import logging
import queue

from flask import Flask, current_app, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from antidrift.web.push import Connection
from antidrift.web.views import Shows

log = logging.getLogger("antidrift.ws")
SERVER_RESTART = 1012  # htmx's extension reconnects on 1012; it would not on 1000/1001


def _shows() -> Shows | None:
    args = request.args
    if "view" not in args or not args["view"]:
        return None  # tells nothing: brought up to date on connect
    return Shows(args["view"][:16], args.get("c", "")[:64], args.get("p", "")[:64])


def _wake_on_close(socket, conn: Connection) -> None:
    """Wake the loop the moment the page closes, so its pool thread is free at once (not a
    second later: a burst of short-lived sockets would otherwise grow gunicorn's pool, which
    never shrinks). simple-websocket's reader clears `connected`, then sets `event`."""
    set_event = socket.event.set

    def set_and_wake() -> None:
        set_event()
        if not socket.connected:
            with contextlib.suppress(queue.Full):
                conn.outbox.put_nowait(None)

    socket.event.set = set_and_wake


def install(app: Flask) -> Sock:
    sock = Sock(app)

    @sock.route("/ws")
    def ws(socket) -> None:
        runtime = current_app.extensions["antidrift.runtime"]
        hub = current_app.extensions["antidrift.hub"]
        conn = hub.connect(_shows())
        _wake_on_close(socket, conn)
        try:
            while not runtime.shutting_down.is_set() and socket.connected:
                message = conn.next(timeout=1.0)
                if message is not None:
                    socket.send(message)
                    continue
                if conn.dead:
                    break
                # Nothing to send: drop anything the page sent (the page sends nothing;
                # this keeps a chatty client from growing the buffer) and notice a close.
                while socket.receive(timeout=0) is not None:
                    pass
            socket.close(reason=SERVER_RESTART, message="server restarting")
        except (ConnectionClosed, OSError):
            pass
        finally:
            hub.disconnect(conn)

    return sock
