"""WS /ws against real servers and a real websocket client: which fragments arrive, and when.

Most tests run the app in-process (werkzeug, threaded) over fakes, so the clock and the coach
are driven by the test; a final group runs `antidrift serve` with a fake claude on PATH to
check the real ticker and the real coach call.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from antidrift.ai import CLITimeout, Proposal
from tests.fakes import wait_until
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.html import parse, top_level
from tests.support.live import Live, Page, ids, inputs, is_view, roots, ws_params
from tests.support.plans import PLAN
from tests.support.server import RunningServer

PLAN_INPUTS = ["next_action", "success_condition", "timebox_minutes"]
PROPOSAL = Proposal("Outline the report", "Five headings in the doc", 35)


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
    suggestions = ["suggest-next_action", "suggest-success_condition", "suggest-timebox_minutes"]
    assert ids(message) == ["coach", "task-pick", *suggestions, "next-event"]
    assert roots(message)["coach"].get("data-status") == "idle"
    assert all("hidden" in roots(message)[s].attrs for s in suggestions)
    assert inputs(message) == []
    assert page.quiet() == []


def test_a_page_showing_the_current_active_view_gets_only_its_widgets(srv):
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open(view="active", c=cid, p="")
    assert ids(page.recv()) == [
        "phase",
        "time-left",
        "drift-banner",
        "evidence",
        "drift-guard",
        "controls",
        "away-return",
        "event-clash",
        "meeting",
    ]


def test_a_page_showing_the_current_locked_view_gets_only_its_widgets(srv):
    """0.6: the locked view has a widget of its own (the day's next up): a page that shows
    the current locked view gets it, never the whole view again, never an input."""
    page = srv.open(view="locked", c="", p="")
    messages = page.quiet()
    assert all("view" not in ids(m) and inputs(m) == [] for m in messages)
    assert {i for m in messages for i in ids(m)} <= {"next-up", "page-title", "announce"}


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
    # The three plan inputs, and the draft version the page now shows (hidden: the proposal
    # is in the draft, so a Start from this page is no "Changed in another tab"); never the
    # intent.
    shown = [*PLAN_INPUTS, "draft_version"]
    assert [n.id for n in top_level(ready) if n.tag in ("input", "textarea")] == shown
    assert [i.id for i in inputs(ready)] == shown
    assert top["draft_version"].get("type") == "hidden"
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
    assert ids(message)[:2] == ["coach", "task-pick"] and inputs(message) == []
    assert all(i.startswith("suggest-") for i in ids(message)[2:-1])
    assert ids(message)[-1] == "next-event"  # empty: no calendar is set
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
        params = ws_params(view.by_id("ws"))
        assert params.pop("n")  # the next action's digest (test_push_next_action.py)
        assert params == {"view": "active", "c": cid, "p": ""}
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
    # The guard's line too: it says it judges nothing while the watcher is quiet.
    assert ids(stale) == ["time-left", "evidence", "drift-guard"]
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
        assert ids(page.recv())[:2] == ["coach", "task-pick"]
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
