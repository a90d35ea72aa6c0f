"""WS /ws against real servers and a real websocket client: which fragments arrive, and when.

Most tests run the app in-process (werkzeug, threaded) over fakes, so the clock and the coach
are driven by the test; a final group runs `antidrift serve` with a fake claude on PATH to
check the real ticker and the real coach call.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import websocket
from werkzeug.serving import make_server

from antidrift.ai import CLITimeout, Proposal
from antidrift.app import create_app
from antidrift.bootstrap import Runtime
from antidrift.session import Controller
from antidrift.settings import Settings
from antidrift.snapshot import CoachInfo
from tests.fakes import FakeClock, FakeCoach, FakeStore, wait_until
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.html import Node, parse, top_ids, top_level
from tests.support.server import RunningServer

PLAN_INPUTS = ["next_action", "success_condition", "timebox_minutes"]
PLAN = {"next_action": "Write the intro", "success_condition": "Intro done", "timebox_minutes": 20}
PROPOSAL = Proposal("Outline the report", "Five headings in the doc", 35)
# Widgets outside the view (title, offline notice, chime) ride along with pushes; the tests
# here are about the view's widgets, so they look past those (test_push_page_widgets.py
# checks them).
PAGE_LEVEL = {"page-title", "offline", "chime"}


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


# -- the in-process server over fakes -----------------------------------------------------------


class Live:
    """The real app over fakes, served by werkzeug on an ephemeral port."""

    def __init__(self, tmp) -> None:
        self.clock = FakeClock()
        self.store = FakeStore()
        self.coach = FakeCoach()
        self.controller = Controller(self.store, self.clock, coach=self.coach)
        runtime = Runtime(
            self.controller, self.store, self.clock, CoachInfo("fake", None, self.coach)
        )
        self.runtime = runtime
        self.app = create_app(Settings(data_dir=tmp), runtime=runtime)
        self.hub = self.app.extensions["antidrift.hub"]
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        self.ws_base = f"ws://127.0.0.1:{self.server.server_port}/ws"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
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
        for path in {
            "locked": [],
            "planning": ["/planning"],
            "active": ["/planning", "/commitment"],
            "review": ["/planning", "/commitment", "/finish"],
        }[where]:
            assert self.post(path, PLAN if path == "/commitment" else {})[0] == 200
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


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = Live(tmp_path_factory.mktemp("live"))
    yield server
    server.stop()


@pytest.fixture
def srv(live):
    live.reset()
    yield live
    live.coach.release_all()


def planning_view(live: Live, **extra: str) -> dict[str, str]:
    return {"view": "planning", "c": "", "p": "", **extra}


# -- connecting ---------------------------------------------------------------------------------


def test_a_page_showing_the_current_planning_view_gets_only_its_widgets(srv):
    srv.to("planning")
    page = srv.open(**planning_view(srv))
    message = page.recv()
    assert ids(message) == ["coach", "task-pick"]
    assert roots(message)["coach"].get("data-status") == "idle"
    assert inputs(message) == []
    assert page.quiet() == []


def test_a_page_showing_the_current_active_view_gets_only_its_widgets(srv):
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open(view="active", c=cid, p="")
    assert ids(page.recv()) == ["time-left", "evidence", "drift-guard"]


def test_a_page_showing_the_current_locked_view_gets_nothing(srv):
    page = srv.open(view="locked", c="", p="")
    assert page.quiet() == []


@pytest.mark.parametrize(
    "query",
    [{"view": "locked", "c": "", "p": ""}, {"view": "active", "c": "old-id", "p": ""}],
)
def test_a_page_showing_a_stale_view_gets_the_whole_view(srv, query):
    srv.to("planning")
    page = srv.open(**query)
    message = page.recv()
    assert is_view(message)
    view = roots(message)["view"]
    assert view.tag == "main" and view.get("data-state") == "planning"
    assert ws_params(view.by_id("ws"))["view"] == "planning"


@pytest.mark.parametrize("query", [{}, {"view": ""}])
def test_a_page_that_tells_nothing_gets_the_whole_view(srv, query):
    srv.to("active")
    page = srv.open(**query)
    message = page.recv()
    assert is_view(message)
    assert roots(message)["view"].get("data-state") == "active"
    assert page.quiet() == []


def test_a_page_that_told_nothing_is_then_treated_as_showing_the_current_state(srv):
    srv.to("planning")
    page = srv.open()
    assert is_view(page.recv())
    srv.post("/coach", {"intent": "x"})
    srv.coach.wait_calls(1)
    messages = page.recv_until(lambda m: "coach" in ids(m))
    assert all(not is_view(m) for m in messages)


# -- the coach over the socket ------------------------------------------------------------------


def test_sharpen_pushes_pending_coach_only_then_elapsed_then_one_ready_prefill(srv):
    srv.to("planning")
    page = srv.open(**planning_view(srv))
    page.recv()  # the widgets on connect
    srv.coach.gated = True
    srv.coach.enqueue(PROPOSAL)
    assert srv.post("/coach", {"intent": "the report"})[0] == 200
    pending = page.recv()
    assert ids(pending) == ["coach"]
    assert roots(pending)["coach"].get("data-status") == "pending"
    assert inputs(pending) == [] and "intent" not in parse(pending).ids()
    assert parse(pending).by_id("coach-elapsed").text() == "0 s"

    srv.coach.wait_calls(1)
    srv.clock.advance(2)
    srv.hub.refresh()  # what the ticker does each second
    elapsed = page.recv()
    assert ids(elapsed) == ["coach-elapsed"]
    assert parse(elapsed).by_id("coach-elapsed").text() == "2 s"
    srv.hub.refresh()  # nothing moved: nothing is sent
    assert page.quiet(0.2) == []

    srv.coach.release()
    ready = page.recv()
    top = roots(ready)
    assert top["coach"].get("data-status") == "ready"
    assert [n.id for n in top_level(ready) if n.tag in ("input", "textarea")] == PLAN_INPUTS
    assert [i.id for i in inputs(ready)] == PLAN_INPUTS  # and nothing else, never the intent
    assert top["next_action"].value() == PROPOSAL.next_action
    assert top["success_condition"].value() == PROPOSAL.success_condition
    assert top["timebox_minutes"].value() == "35"
    proposal_id = srv.controller.snapshot().coach.proposal_id
    assert ws_params(top["ws"]) == {"view": "planning", "c": "", "p": proposal_id}
    srv.hub.refresh()
    assert page.quiet() == []  # the pre-fill came exactly once


def test_a_connection_that_already_applied_the_proposal_gets_no_inputs(srv):
    srv.to("planning")
    srv.post("/coach", {"intent": "x"})
    wait_until(lambda: srv.state()["coach"]["status"] == "ready")
    proposal_id = srv.controller.snapshot().coach.proposal_id
    page = srv.open(**planning_view(srv, p=proposal_id))
    message = page.recv()
    assert ids(message) == ["coach", "task-pick"] and inputs(message) == []
    assert page.quiet() == []


def test_a_reconnect_without_the_proposal_id_gets_the_prefill_once(srv):
    srv.to("planning")
    srv.post("/coach", {"intent": "x"})
    wait_until(lambda: srv.state()["coach"]["status"] == "ready")
    page = srv.open(**planning_view(srv))
    message = page.recv()
    assert [i.id for i in inputs(message)] == PLAN_INPUTS
    srv.hub.refresh()
    assert page.quiet() == []


def test_two_pages_open_during_ready_each_get_the_prefill_exactly_once(srv):
    srv.to("planning")
    srv.coach.gated = True
    a, b = srv.open(**planning_view(srv)), srv.open(**planning_view(srv))
    a.recv(), b.recv()
    srv.post("/coach", {"intent": "x"})
    srv.coach.wait_calls(1)
    srv.coach.release()
    for page in (a, b):
        got = page.recv_until(lambda m: roots(m).get("coach") is not None and "ready" in m)
        prefills = [m for m in got if inputs(m)]
        assert len(prefills) == 1
    srv.clock.advance(5)
    srv.hub.refresh()
    srv.post("/evidence/window", {"app": "code", "title": "x"})  # dropped while planning
    assert a.quiet() == [] and b.quiet(0.05) == []


def test_later_coach_changes_never_carry_inputs(srv):
    srv.to("planning")
    page = srv.open(**planning_view(srv))
    page.recv()
    srv.post("/coach", {"intent": "first"})
    page.recv_until(lambda m: bool(inputs(m)))
    srv.coach.gated = True
    srv.coach.enqueue(CLITimeout(60))
    srv.post("/coach", {"intent": "second"})
    pending = page.recv()
    assert ids(pending) == ["coach"] and inputs(pending) == []
    srv.coach.wait_calls(2)
    srv.coach.release()
    error = page.recv()
    assert ids(error) == ["coach"] and inputs(error) == []
    assert roots(error)["coach"].get("data-status") == "error"
    assert "longer than 60 s" in roots(error)["coach"].text()
    srv.post("/coach/cancel")
    idle = page.recv()
    assert ids(idle) == ["coach"] and inputs(idle) == []


def test_a_new_proposal_prefills_again_once(srv):
    srv.to("planning")
    page = srv.open(**planning_view(srv))
    page.recv()
    srv.coach.enqueue(PROPOSAL, Proposal("Second idea", "Second check", 10))
    srv.post("/coach", {"intent": "one"})
    page.recv_until(lambda m: bool(inputs(m)))
    srv.post("/coach", {"intent": "two"})
    got = page.recv_until(lambda m: bool(inputs(m)))
    [prefill] = [m for m in got if inputs(m)]
    assert roots(prefill)["next_action"].value() == "Second idea"
    assert roots(prefill)["timebox_minutes"].value() == "10"


# -- state changes and the active view ----------------------------------------------------------


def test_a_state_change_pushes_the_whole_view_to_every_page(srv):
    srv.to("planning")
    pages = [srv.open(**planning_view(srv)) for _ in range(3)]
    for page in pages:
        page.recv()
    assert srv.post("/commitment", PLAN)[0] == 200
    cid = srv.state()["commitment"]["id"]
    for page in pages:
        message = page.recv()
        assert is_view(message)
        view = roots(message)["view"]
        assert view.get("data-state") == "active"
        assert ws_params(view.by_id("ws")) == {"view": "active", "c": cid, "p": ""}
        assert view.by_id("time-left") is not None


def test_active_pushes_time_left_as_the_clock_moves_and_evidence_when_it_arrives(srv):
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open(view="active", c=cid, p="")
    page.recv()
    texts = []
    for _ in range(3):
        srv.clock.advance(1)
        srv.hub.refresh()
        message = page.recv()
        assert ids(message) == ["time-left"]
        texts.append(parse(message).by_id("time-left").text())
    assert [t.split()[0] for t in texts] == ["19:59", "19:58", "19:57"]
    assert srv.post("/evidence/window", {"app": "firefox", "title": "Docs"})[0] == 202
    message = page.recv()
    assert ids(message) == ["evidence"] and inputs(message) == []
    evidence = roots(message)["evidence"]
    assert evidence.get("data-health") == "healthy"
    assert "firefox" in evidence.text() and "Docs" in evidence.text()
    srv.post("/evidence/window", {"app": "firefox", "title": "Docs"})  # same window: no push
    assert page.quiet(0.2) == []
    srv.clock.advance(31)  # the watcher went quiet
    srv.hub.refresh()
    stale = page.recv()
    assert ids(stale) == ["time-left", "evidence"]
    assert roots(stale)["evidence"].get("data-health") == "stale"


def test_a_window_switch_within_one_app_reaches_the_page(srv):
    """Same app, new title: the evidence widget is pushed (its view model is its key)."""
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open(view="active", c=cid, p="")
    page.recv()
    assert srv.post("/evidence/window", {"app": "firefox", "title": "Docs"})[0] == 202
    assert "Docs" in roots(page.recv())["evidence"].text()
    assert srv.post("/evidence/window", {"app": "firefox", "title": "Inbox"})[0] == 202
    message = page.recv()
    assert ids(message) == ["evidence"]
    text = roots(message)["evidence"].text()
    assert "firefox" in text and "Inbox" in text and "Docs" not in text


def test_the_timebox_ending_pushes_the_review_view(srv):
    srv.to("active")
    page = srv.open()
    page.recv()
    srv.clock.advance(20 * 60)
    assert srv.controller.expire_if_due()
    message = page.recv_until(is_view)[-1]
    assert roots(message)["view"].get("data-state") == "review"


def test_a_closed_page_is_forgotten_by_the_hub(srv):
    page = srv.open()
    page.recv()
    assert page.conn in srv.connections()
    page.close()
    wait_until(lambda: page.conn not in srv.connections(), timeout=3)


# -- the real server: its ticker, and a fake claude on PATH -------------------------------------


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    base = tmp_path_factory.mktemp("real")
    cli = FakeCLI(base / "bin")
    server = RunningServer(base / "data", env={"PATH": path_with(cli.folder)})
    server.start()
    server.cli = cli
    yield server
    server.stop()


def open_real(server: RunningServer, **query: str) -> Page:
    return Page(f"{server.ws_base}/ws" + (f"?{urlencode(query)}" if query else ""))


def test_the_real_ticker_pushes_time_left_every_second(real):
    real.reset()
    real.post("/planning")
    real.post("/commitment", PLAN)
    cid = real.get("/state")["commitment"]["id"]
    page = open_real(real, view="active", c=cid, p="")
    try:
        page.recv()
        clocks: list[str] = []

        def tick(message: str) -> bool:
            if "time-left" in ids(message):
                clocks.append(parse(message).by_id("time-left").text().split()[0])
            return len(clocks) >= 2

        page.recv_until(tick, timeout=3.5)
        assert len(set(clocks)) == 2 and clocks[0] > clocks[1], clocks
    finally:
        page.close()
        real.reset()


def test_a_fake_claude_sharpen_shows_elapsed_seconds_then_fills_the_inputs(real, tmp_path):
    real.reset()
    go = tmp_path / "go"
    real.cli.configure(wait_for=str(go))  # answers when the test says, however loaded CI is
    real.post("/planning")
    page = open_real(real, view="planning", c="", p="")
    try:
        assert ids(page.recv()) == ["coach", "task-pick"]
        assert real.post("/coach", {"intent": "the quarterly report"})[0] == 200
        seconds: list[int] = []

        def elapsed(message: str) -> bool:
            assert not inputs(message), "inputs arrived before the CLI answered"
            if ids(message) == ["coach-elapsed"]:
                seconds.append(int(parse(message).by_id("coach-elapsed").text().split()[0]))
            return len(seconds) >= 2

        got = page.recv_until(elapsed, timeout=30)
        assert roots(got[0])["coach"].get("data-status") == "pending"
        # The real ticker pushes the running seconds, each push a later second.
        assert seconds[0] >= 1 and seconds == sorted(set(seconds)), seconds
        go.touch()
        got = page.recv_until(lambda m: bool(inputs(m)), timeout=30)
        ready = roots(got[-1])
        assert ready["coach"].get("data-status") == "ready"
        assert ready["next_action"].value() == "Draft the executive summary"
        assert ready["timebox_minutes"].value() == "40"
        assert "intent" not in parse(got[-1]).ids()
    finally:
        page.close()
        real.cli.configure()
        real.reset()
