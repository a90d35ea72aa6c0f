"""WS /ws: one loop per open page, sending what the hub queued for it.

flask-sock (and simple-websocket, wsproto, h11 and asyncio under it: ~30 ms and ~2 MiB) is
loaded by the first page that connects, not by every start (issue 33): the route is the
app's from the start, and what flask-sock makes of the loop below is built on first use."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable

from flask import Flask, current_app, request

from antidrift.web.push import Connection
from antidrift.web.views import Shows

log = logging.getLogger("antidrift.ws")
SERVER_RESTART = 1012  # htmx's extension reconnects on 1012; it would not on 1000/1001


def _shows() -> Shows | None:
    args = request.args
    if "view" not in args or not args["view"]:
        return None  # tells nothing: brought up to date on connect
    return Shows(
        args["view"][:16], args.get("c", "")[:64], args.get("p", "")[:64], args.get("n", "")[:16]
    )


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


class _Kept:
    """Where flask-sock's `route(path, bp=…)` puts the view it wraps around a loop."""

    view: Callable[..., object]

    def route(self, path: str, **options) -> Callable:
        def keep(view: Callable[..., object]) -> Callable[..., object]:
            self.view = view
            return view

        return keep


def _loop(socket) -> None:
    """One open page: send what the hub queues for it until it closes or the server stops."""
    from simple_websocket import ConnectionClosed

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


def install(app: Flask) -> None:
    built: list[Callable[..., object]] = []
    building = threading.Lock()

    def ws():
        if not built:
            with building:
                if not built:
                    from flask_sock import Sock

                    kept = _Kept()
                    Sock().route("/ws", bp=kept)(_loop)
                    built.append(kept.view)
        return built[0]()

    # As flask-sock registers it: a websocket-only rule (a plain GET /ws is a 400).
    app.add_url_rule("/ws", "ws", ws, websocket=True)
