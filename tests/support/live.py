"""The real app over fakes, served by werkzeug on an ephemeral port, and real websocket pages
on it: the rig of the push tests (tests/integration/test_push_*.py)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit

import websocket
from werkzeug.serving import make_server

from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import Settings
from tests.fakes import FakeClock, FakeCoach, FakeStore, wait_until
from tests.support.html import Node, parse, top_ids, top_level
from tests.support.plans import PLAN
from tests.support.session import build_controller
from tests.support.walk import walk_http

# Widgets outside the view (title, icon, offline notice, chime, live region) ride along with
# pushes; the tests here are about the view's widgets, so they look past those
# (test_push_page_widgets.py and test_push_pause.py check them).
PAGE_LEVEL = {"page-title", "icon", "offline", "chime", "announce"}


class Page:
    """One open page's socket: receive with a deadline, or prove that nothing arrives."""

    def __init__(self, url: str) -> None:
        self.ws = websocket.create_connection(url, timeout=5)
        self.received: list[str] = []
        self.page_level: list[str] = []  # messages of page-level widgets only
        self.conn = None  # the hub's Connection, for the in-process server

    def recv(self, timeout: float = 3.0) -> str:
        """The next message that carries a view widget."""
        deadline = time.monotonic() + timeout
        while True:
            self.ws.settimeout(max(deadline - time.monotonic(), 0.001))
            message = self.ws.recv()
            if not set(top_ids(message)) <= PAGE_LEVEL:
                self.received.append(message)
                return message
            self.page_level.append(message)

    def recv_until(self, predicate, timeout: float = 5.0) -> list[str]:
        """Messages up to and including the first one for which predicate(message) holds."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message in {timeout} s; got {got!r}")
            try:
                message = self.recv(left)
            except websocket.WebSocketTimeoutException:
                continue
            got.append(message)
            if predicate(message):
                return got

    def quiet(self, seconds: float = 0.3) -> list[str]:
        """Whatever arrives within seconds (usually asserted to be nothing)."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                got.append(self.recv(left))
            except websocket.WebSocketTimeoutException:
                break
        return got

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.ws.close()


def ids(message: str) -> list[str | None]:
    return [n.id for n in top_level(message) if n.id not in PAGE_LEVEL]


def inputs(message: str) -> list[Node]:
    return parse(message).fields()


def roots(message: str) -> dict[str, Node]:
    return {n.id: n for n in top_level(message)}


def ws_params(node: Node) -> dict[str, str]:
    url = urlsplit(node.get("ws-connect"))
    return {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}


def is_view(message: str) -> bool:
    return ids(message) == ["view"]


class Live:
    """The real app over fakes, served by werkzeug on an ephemeral port."""

    def __init__(self, tmp) -> None:
        self.clock = FakeClock()
        self.store = FakeStore()
        self.coach = FakeCoach()
        self.controller = build_controller(self.store, self.clock, coach=self.coach)
        runtime = Runtime(
            self.controller, self.store, self.clock, CoachInfo("fake", None, self.coach)
        )
        self.runtime = runtime
        self.app = create_app(Settings(data_dir=tmp), runtime=runtime)
        self.hub = self.app.extensions["antidrift.hub"]
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        self.ws_base = f"ws://127.0.0.1:{self.server.server_port}/ws"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        self.pages: list[Page] = []

    def post(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(body or {}).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def state(self) -> dict:
        with urllib.request.urlopen(self.base + "/state", timeout=5) as resp:
            return json.loads(resp.read())

    def open(self, **query: str) -> Page:
        url = self.ws_base + (f"?{urlencode(query)}" if query else "")
        before = self.connections()
        page = Page(url)
        self.pages.append(page)
        # Registered with the hub (a page showing the current state may get no message).
        [page.conn] = wait_until(
            lambda: self.connections() - before, message="the hub never saw the page"
        )
        return page

    def connections(self) -> set:
        with self.hub._lock:
            return set(self.hub._connections)

    def to(self, where: str) -> None:
        state = self.state()["runtime_state"]
        if state == "planning":
            self.post("/planning/cancel")
        elif state == "active":
            self.post("/finish")
            state = "review"
        if state == "review":
            self.post("/end", {"outcome": "met"})
        walk_http(lambda path, form: self.post(path, form)[0], where, **PLAN)
        assert self.state()["runtime_state"] == where

    def reset(self) -> None:
        # Closed sockets leave the hub within a second (the server loop's poll); tests do
        # not wait for that: a closing socket only receives what no page will read.
        for page in self.pages:
            page.close()
        self.pages.clear()
        self.to("locked")  # cancels any call still running
        self.coach.reset()

    def stop(self) -> None:
        self.runtime.quiesce()
        for page in self.pages:
            page.close()
        self.server.shutdown()
