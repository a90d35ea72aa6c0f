"""Pause, undo Finish and the closure in Chromium against a real server: by keyboard and
mouse with the focus where it belongs, the clock standing still while paused under a Paused
label (the watcher's line calm, not "gone quiet"), and each state
at 1280 and 390 wide, light and dark, with no serious or critical axe-core violation."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

PLAN = {"next_action": "Draft the grant report", "success_condition": "Sent to Ada"}


def post(app, path: str, body: dict | None = None) -> int:
    return app.server.post(path, body)[0]


def active(app, minutes: int = 25) -> None:
    assert post(app, "/planning") == 200
    assert post(app, "/commitment", {**PLAN, "timebox_minutes": str(minutes)}) == 200


def test_pause_resume_undo_and_again_by_clicking_with_the_focus_kept(page, app, ui):
    expect = ui.expect
    active(app)
    page.reload()
    expect(ui.view(page, "active")).to_be_visible()
    deadline = app.server.get("/state")["commitment"]["deadline"]

    page.get_by_role("button", name="Pause").click()
    resume = page.get_by_role("button", name="Resume")
    expect(resume).to_be_focused()  # the button pressed was replaced: focus on its successor
    expect(page.locator("#paused-note")).to_contain_text("Paused with 2")
    expect(page).to_have_title(re.compile(r"^Paused · 2\d:\d\d · Draft the grant report"))
    expect(page.get_by_role("button", name="+5 min")).to_have_count(0)
    # Above the clock, the card says Paused (not Active), and the watcher's line is calm:
    # no window is recorded, which is the pause, not a watcher gone quiet.
    phase = page.locator("#phase")
    expect(phase).to_have_text("Paused")
    assert ui.box(phase)["y"] < ui.box(page.locator(".time-left-clock"))["y"]
    expect(page.locator("#evidence")).to_have_text("Not watching while paused.")
    expect(page.locator("#evidence")).not_to_have_class("evidence evidence-stale")
    held = ui.timer_text(page)
    page.wait_for_timeout(1500)  # the CSS clock would have moved by now
    assert ui.timer_text(page) == held
    assert app.server.get("/state")["paused"] is True

    page.keyboard.press("Enter")  # Resume, by keyboard: it has the focus
    expect(page.get_by_role("button", name="Pause")).to_be_focused()
    expect(page).not_to_have_title(re.compile("^Paused"))
    expect(phase).to_have_text("Active")
    state = app.server.get("/state")
    assert state["paused"] is False and state["commitment"]["deadline"] >= deadline

    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    undo = page.get_by_role("button", name="Undo Finish")
    expect(undo).to_be_visible()
    undo.click()
    expect(ui.view(page, "active")).to_be_visible()
    expect(page.locator("#active-title")).to_be_focused()
    again_deadline = app.server.get("/state")["commitment"]["deadline"]
    assert again_deadline == state["commitment"]["deadline"]  # the same deadline

    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    closure = page.locator("#closure")
    expect(closure).to_be_visible()
    expect(closure.get_by_role("heading")).to_have_text("Met")
    expect(page.get_by_role("button", name="Plan the next")).to_be_focused()
    expect(page.get_by_text("No commitment yet.")).to_have_count(0)
    page.reload()
    expect(page.locator("#closure")).to_be_visible()  # a reload still shows it

    page.get_by_role("button", name="Again").click()
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.get_by_label("Next action", exact=True)).to_have_value(PLAN["next_action"])
    expect(page.get_by_label("Done when", exact=True)).to_have_value(PLAN["success_condition"])
    expect(page.get_by_label("Minutes", exact=True)).to_have_value("25")


VIEWS = [
    (1280, 800, "light"),
    (1280, 800, "dark"),
    (390, 844, "light"),
    (390, 844, "dark"),
]


@pytest.mark.parametrize(("width", "height", "scheme"), VIEWS)
def test_paused_undo_and_closure_fit_and_pass_axe(new_tabs, app, ui, width, height, scheme):
    expect = ui.expect
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    # Missed, then met once (the module's server keeps its history): a streak of two to say.
    for outcome in ("missed", "met"):
        active(app)
        post(app, "/finish")
        post(app, "/end", {"outcome": outcome})
    active(app)
    assert post(app, "/pause") == 200
    page, _ = tabs.open()
    expect(page.locator("#paused-note")).to_be_visible()
    ui.snap(page, f"pause-paused-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0

    page.get_by_role("button", name="Finish").click()
    expect(page.get_by_role("button", name="Undo Finish")).to_be_visible()
    ui.snap(page, f"pause-undo-{width}-{scheme}")
    assert ui.axe_problems(page) == []

    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(page.locator("#closure")).to_be_visible()
    expect(page.locator("#closure").get_by_role("heading")).to_have_text("Met · 2 in a row")
    ui.snap(page, f"pause-closure-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0
