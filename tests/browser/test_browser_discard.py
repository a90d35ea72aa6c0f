"""Discard in Chromium: it asks first in a popover (HTML's own, no script of ours, never the
browser's bare confirm()): Keep it and Escape close it and change nothing, Discard sends the
commitment to the history as discarded (POST /discard, as before); the question at 1280 and
390 wide, light and dark, with no serious or critical axe-core violation."""

from __future__ import annotations

import time

import pytest

from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser

PLAN = {"next_action": "Draft the grant report", "success_condition": "Sent to Ada"}
QUESTION = "Discard this commitment? It goes to your history as discarded, neither met nor missed."


def connected(ui, page, watch, since: float) -> None:
    """The page's socket (opened after `since`) has brought its first push, which renders
    every widget anew (the controls, with the popover, included): only then is Discard pressed,
    or the push would close the question it opened."""
    ui.wait_until(page, lambda: watch.frames_with('id="controls"', since), what="the first push")


def opened(ui, page):
    """Discard pressed: the question shows, Keep it (the safe answer) has the focus."""
    page.locator("#controls .actions").get_by_role("button", name="Discard").click()
    question = page.get_by_role("dialog")
    ui.expect(question).to_be_visible()
    ui.expect(question).to_contain_text(QUESTION)
    ui.expect(question.get_by_role("button", name="Keep it")).to_be_focused()
    return question


def test_discard_asks_first_keep_it_keeps_and_discard_discards(page, watch, app, ui):
    expect = ui.expect
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    walk_http(server_post(app.server), "active", **PLAN)
    since = time.monotonic()
    page.reload()
    expect(ui.view(page, "active")).to_be_visible()
    connected(ui, page, watch, since)
    expect(page.get_by_role("dialog")).to_be_hidden()

    question = opened(ui, page)
    question.get_by_role("button", name="Keep it").click()
    expect(question).to_be_hidden()
    # Focus goes back to Discard, and nothing changed.
    expect(page.locator("#controls .actions").get_by_role("button", name="Discard")).to_be_focused()
    assert app.server.get("/state")["runtime_state"] == "active"

    question = opened(ui, page)
    page.keyboard.press("Escape")  # the popover's own light dismiss keeps it too
    expect(question).to_be_hidden()
    assert app.server.get("/state")["runtime_state"] == "active"

    question = opened(ui, page)
    question.get_by_role("button", name="Discard").click()
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.locator(".history-item").first).to_contain_text("discarded")
    assert [c["outcome"] for c in app.server.get("/history")] == ["discarded"]
    assert dialogs == []  # never the browser's own confirm()


LOOKS = [(1280, 800, "light"), (1280, 800, "dark"), (390, 844, "light"), (390, 844, "dark")]


@pytest.mark.parametrize(("width", "height", "scheme"), LOOKS)
def test_the_question_fits_and_passes_axe(new_tabs, app, ui, width, height, scheme):
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    walk_http(server_post(app.server), "active", **PLAN)
    since = time.monotonic()
    page, watch = tabs.open()
    ui.expect(ui.view(page, "active")).to_be_visible()
    connected(ui, page, watch, since)
    question = opened(ui, page)
    ui.settled(page)
    box = ui.box(question)
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert ui.sideways_scroll(page) == 0
    assert ui.axe_problems(page) == []
    ui.snap(page, f"discard-{width}-{scheme}")
