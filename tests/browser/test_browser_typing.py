"""Typing survives the coach (issue 4, scenario 2): the pushes that arrive while a person
types never touch the intent box or the caret; a ready proposal fills the three plan inputs
once; what the person edits afterwards survives every later push until a new proposal."""

from __future__ import annotations

import contextlib
import re
import time

import pytest

from tests.support.fake_cli import DEFAULT_PROPOSAL

pytestmark = pytest.mark.browser

PREFILL = 'id="next_action"'
ELAPSED = 'id="coach-elapsed"'
SECOND_PROPOSAL = {
    "next_action": "Build the appendix tables",
    "success_condition": "Tables A1-A4 checked against the ledger",
    "timebox_minutes": 25,
}


def prefills(watch) -> int:
    """Pushes that carried the plan inputs outside a whole-view swap: the pre-fill."""
    return sum(1 for _, f in watch.frames if PREFILL in f and 'id="view"' not in f)


def plan_inputs(page) -> tuple[str, str, str]:
    return (
        page.input_value("#next_action"),
        page.input_value("#success_condition"),
        page.input_value("#timebox_minutes"),
    )


def test_typing_survives_the_coach(tabs, app, ui, tmp_path):
    expect = ui.expect
    page, watch = tabs.open()
    ui.plan(page)
    intent = page.locator("#intent")
    typed = "work on the quarterly report"
    more = ", then the appendix tables"

    # -- Sharpen (Enter in the intent box), and keep typing while the pushes arrive --------
    go = tmp_path / "go"
    app.fake.configure(wait_for=str(go))  # the coach answers once the typing is checked
    intent.click()
    page.keyboard.type(typed)
    started = time.monotonic()
    page.keyboard.press("Enter")
    page.keyboard.type(more, delay=90)  # ~2.3 s of typing, straight after Enter
    stopped = time.monotonic()

    assert page.input_value("#intent") == typed + more, "the pushes clobbered the typing"
    assert ui.active_id(page) == "intent", "the pushes took the focus away from the intent box"
    during = [f for t, f in watch.frames if started <= t <= stopped]
    assert any('data-status="pending"' in f for f in during), "no pending push while typing"
    assert any(ELAPSED in f for f in during), "no elapsed-time push while typing"
    caret = page.evaluate(
        "[document.activeElement.selectionStart, document.activeElement.selectionEnd]"
    )
    assert caret == [len(typed + more)] * 2, "the caret moved"
    pending = ui.coach(page, "pending")
    expect(pending).to_be_visible()
    expect(page.locator("#coach-elapsed")).to_have_text(re.compile(r"^[1-9]\d* s$"))
    assert plan_inputs(page) == ("", "", "25"), "a pending push touched the plan inputs"
    ui.snap(page, "pending")

    # -- the proposal fills the three inputs, once, and never the intent box ---------------
    go.touch()
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(DEFAULT_PROPOSAL["next_action"])
    assert plan_inputs(page) == (
        DEFAULT_PROPOSAL["next_action"],
        DEFAULT_PROPOSAL["success_condition"],
        str(DEFAULT_PROPOSAL["timebox_minutes"]),
    )
    expect(intent).to_have_value(typed + more)
    assert ui.active_id(page) == "intent"
    ui.snap(page, "ready")
    assert prefills(watch) == 1


def test_an_edit_of_the_proposal_survives_every_later_push(tabs, app, ui, tmp_path):
    """What the person edits after the proposal filled the inputs survives a second tab, a
    reconnect, the other tab's coach (pending, elapsed, error) and ticks; a NEW proposal
    fills the other inputs again, once, and shows beside the edit; Start takes what the page
    shows."""
    expect = ui.expect
    routes: list = []

    def proxy_sockets(page) -> None:
        # The page's websocket goes through Playwright to the real server, so the test can
        # drop it (close 1012, as a restarting server does) and watch the page reconnect.
        def proxy(ws) -> None:
            routes.append((ws, ws.connect_to_server()))

        page.route_web_socket(re.compile(r"/ws\b"), proxy)

    page, watch = tabs.open(before=proxy_sockets)
    ui.plan(page)
    intent = page.locator("#intent")
    words = "work on the quarterly report, then the appendix tables"
    intent.fill(words)
    intent.press("Enter")  # the coach answers at once
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(DEFAULT_PROPOSAL["next_action"])
    assert prefills(watch) == 1

    # -- edit one; what follows must not clobber it ----------------------------------------
    edited = "Two paragraphs and one chart"
    done_when = page.get_by_label("Done when", exact=True)
    done_when.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(edited)
    expect(done_when).to_have_value(edited)

    def edit_intact(after: str) -> None:
        assert page.input_value("#success_condition") == edited, f"{after} clobbered the edit"
        assert page.input_value("#next_action") == DEFAULT_PROPOSAL["next_action"], after
        assert page.input_value("#intent") == words, f"{after} touched the intent box"
        assert prefills(watch) == 1, f"{after} pushed the proposal again"

    # Another tab opens: it shows the proposal; this tab keeps the edit.
    other, other_watch = tabs.open()
    expect(ui.coach(other, "ready")).to_be_visible()
    expect(other.locator("#next_action")).to_have_value(DEFAULT_PROPOSAL["next_action"])
    ui.wait_until(other, lambda: bool(other_watch.frames), what="the second tab's socket")
    edit_intact("a second tab opening")

    # This tab's websocket drops and reconnects (close 1012, as on a server restart).
    sockets = len(watch.sockets)
    dropped = time.monotonic()
    to_page, to_server = routes[-1]
    to_server.close(code=1000, reason="test drops the socket")  # the server forgets this page
    to_page.close(code=1012, reason="test drops the socket")  # the page sees a restart code
    ui.wait_until(
        page,
        lambda: len(watch.sockets) > sockets and any(t > dropped for t, _ in watch.frames),
        what="a reconnect",
    )
    expect(ui.coach(page, "ready")).to_be_visible()
    edit_intact("a websocket reconnect")

    # The other tab asks the coach (logged out this time): pending, elapsed ticks, an error.
    go_error = tmp_path / "go-error"  # it answers once an elapsed-time tick has come
    app.fake.configure(answer="Not logged in · Please run /login\n", exit=1, wait_for=str(go_error))
    asked = time.monotonic()
    other.get_by_label("Rough intent").fill("something else entirely")
    other.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "pending")).to_be_visible()
    ui.wait_until(
        page, lambda: bool(watch.frames_with(ELAPSED, since=asked)), what="an elapsed-time tick"
    )
    go_error.touch()
    expect(ui.coach(page, "error")).to_be_visible()
    expect(page.locator("#coach")).to_contain_text("not logged in")
    edit_intact("pending, elapsed-time and coach-error pushes")

    # -- Sharpen by clicking: a NEW proposal fills the inputs again, once, but the edit -----
    # (0.5: a new Sharpen never writes over a field the user typed in; it waits beside it)
    app.fake.configure(answer=SECOND_PROPOSAL, delay=0.4)
    # A person brings the tab to the front to click in it; a tab behind paints no frames,
    # and Playwright's click waits for two (it took 1-2 s here before).
    page.bring_to_front()
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(SECOND_PROPOSAL["next_action"])
    assert plan_inputs(page) == (
        SECOND_PROPOSAL["next_action"],
        edited,
        str(SECOND_PROPOSAL["timebox_minutes"]),
    )
    beside = page.locator("#suggest-success_condition")
    expect(beside).to_contain_text(SECOND_PROPOSAL["success_condition"])
    expect(intent).to_have_value(words)
    expect(other.locator("#next_action")).to_have_value(SECOND_PROPOSAL["next_action"])
    expect(other.locator("#intent")).to_have_value("something else entirely")
    assert prefills(watch) == 2
    assert prefills(other_watch) == 1  # it loaded the first one with the page

    minutes = page.get_by_label("Minutes", exact=True)
    minutes.fill("35")
    reloaded = len(other_watch.sockets)
    other.reload()  # the other tab reconnecting
    expect(ui.coach(other, "ready")).to_be_visible()
    ui.wait_until(other, lambda: len(other_watch.sockets) > reloaded, what="the reload's socket")
    app.server.ticks(2)  # a whole tick after the reload: a tick must not re-send the proposal
    expect(minutes).to_have_value("35")
    expect(page.locator("#next_action")).to_have_value(SECOND_PROPOSAL["next_action"])
    assert prefills(watch) == 2

    # And Start takes what the page shows, edits included.
    page.bring_to_front()
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    commitment = app.server.get("/state")["commitment"]
    assert (commitment["next_action"], commitment["timebox_secs"]) == (
        SECOND_PROPOSAL["next_action"],
        35 * 60,
    )
    assert commitment["success_condition"] == edited


def test_typing_right_after_plan_survives_a_late_push_to_the_old_socket(tabs, app, ui):
    """The push that carries Plan's new view goes to the page's old (locked) socket; under load
    it and the pushes after it can land late, after the new view is up and the user types.
    Here they are held, the view released, the intent typed at once, then the rest (and the
    view again) delivered late: the typed words stay (a message on a socket the view has
    replaced is dropped, and the server sends a whole view only to a page showing another)."""
    expect = ui.expect
    held: list[str] = []
    routes: dict[str, tuple] = {}
    hold = {"on": False}

    def proxy_sockets(page) -> None:
        def proxy(ws) -> None:
            server = ws.connect_to_server()
            routes[ws.url] = (ws, server)

            def from_server(message) -> None:
                if hold["on"] and "view=locked" in ws.url:
                    held.append(message)
                else:
                    ws.send(message)

            server.on_message(from_server)

        page.route_web_socket(re.compile(r"/ws\b"), proxy)

    page, watch = tabs.open(before=proxy_sockets)
    expect(ui.view(page, "locked")).to_be_visible()
    old = next(ws for url, (ws, _) in routes.items() if "view=locked" in url)
    hold["on"] = True
    page.get_by_role("button", name="Plan").click()
    ui.wait_until(page, lambda: any('id="view"' in m for m in held), what="the held view")
    view = next(m for m in held if 'id="view"' in m)
    old.send(view)  # the view arrives; the page opens its planning socket
    expect(ui.view(page, "planning")).to_be_visible()
    typed = "work on the quarterly report"
    page.get_by_label("Rough intent").fill(typed)  # at once, before anything else lands
    app.server.ticks(2)  # more pushes queue behind on the old socket
    for message in [*held[held.index(view) + 1 :], view]:  # late, and the view once more
        with contextlib.suppress(Exception):  # the page may have closed that socket already
            old.send(message)
    page.wait_for_timeout(1500)
    assert page.input_value("#intent") == typed, "a late push replaced what was typed"
    assert ui.active_id(page) == "intent"
    assert watch.errors == []
