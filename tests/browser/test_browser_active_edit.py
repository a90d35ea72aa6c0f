"""The running commitment's next action edited in Chromium against a real server (Edit opens
its editor, Save changes it in every tab, a refusal sits beside the field, Cancel leaves it
as it was), and the active view's shortcuts: HTML accesskeys, pressed as Chromium on Linux
takes them (Alt+letter), said on the page; each look at 1280 and 390, light and dark, with no
serious or critical axe-core violation."""

from __future__ import annotations

import re

import pytest

from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser

PLAN = {"next_action": "Draft the grant report", "success_condition": "Sent to Ada"}


def active(app) -> None:
    walk_http(server_post(app.server), "active", **PLAN, timebox_minutes=25)


def access_key(page, letter: str) -> None:
    """Alt+letter as a real keyboard reaches Chromium on Linux: a raw key down, then its
    character (with its unmodified text), Alt held. Playwright's keyboard.press("Alt+p")
    sends no such character while a modifier is held, and Chromium finds an access key on
    it: pressed that way, no access key ever fires (measured in the headless shell and in
    Chromium alike)."""
    cdp = page.context.new_cdp_session(page)
    key = {"modifiers": 1, "key": letter, "code": f"Key{letter.upper()}"}
    key["windowsVirtualKeyCode"] = ord(letter.upper())
    try:
        cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **key})
        typed = {"text": letter, "unmodifiedText": letter}  # the access key is the unmodified
        cdp.send("Input.dispatchKeyEvent", {"type": "char", **typed, **key})
        cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **key})
    finally:
        cdp.detach()


def test_edit_saves_the_next_action_in_every_tab_and_focus_lands_on_it(tabs, app, ui):
    expect = ui.expect
    active(app)
    page, other = tabs.open(), tabs.open()
    page, other = page[0], other[0]
    expect(ui.view(page, "active")).to_be_visible()
    editor = page.locator("#edit-next")
    expect(editor).to_be_hidden()

    page.get_by_role("button", name="Edit the next action").click()
    expect(editor).to_be_visible()
    field = page.locator("#edit-next_action")
    expect(field).to_have_value("Draft the grant report")
    expect(field).to_be_focused()
    expect(field).to_have_attribute("maxlength", "500")
    expect(field).to_have_attribute("dir", "auto")
    field.fill("Outline the grant report's budget")
    expect(page.locator("#count-edit-next_action")).to_have_text("33 / 500")
    page.get_by_role("button", name="Save").click()

    expect(editor).to_be_hidden()
    heading = page.locator("#active-title")
    expect(heading).to_have_text("Outline the grant report's budget")
    expect(heading).to_be_focused()
    expect(page).to_have_title(re.compile("Outline the grant report"))
    # The other tab hears it by push, its editor closed with the new text.
    expect(other.locator("#active-title")).to_have_text("Outline the grant report's budget")
    expect(other.locator("#edit-next_action")).to_have_value("Outline the grant report's budget")
    assert app.server.get("/state")["commitment"]["next_action"] == (
        "Outline the grant report's budget"
    )

    # Finished, the history keeps the final next action.
    app.server.post("/finish")
    app.server.post("/end", {"outcome": "met"})
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.locator("#view")).to_contain_text("Outline the grant report's budget")


def test_a_refused_edit_is_said_beside_the_field_and_cancel_keeps_the_old_one(page, app, ui):
    expect = ui.expect
    active(app)
    page.reload()
    page.get_by_role("button", name="Edit the next action").click()
    field = page.locator("#edit-next_action")
    # The editor's field comes afresh as it opens (GET /commitment/next_action) and takes the
    # focus: typed before it lands, the words would be replaced (a known race, said in the
    # session's closing note); a person sees the field focus first.
    expect(field).to_be_focused()
    ui.settled(page)
    field.fill("   ")  # not empty to the browser; nothing once trimmed
    page.get_by_role("button", name="Save").click()
    message = page.locator("#edit-next-message")
    expect(message).to_have_text("Next action is required.")
    field = page.locator("#edit-next_action")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_be_focused()
    expect(page.locator("#edit-next")).to_be_visible()  # still open, to put it right
    assert app.server.get("/state")["commitment"]["next_action"] == "Draft the grant report"

    field.fill("Something else")
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("#edit-next")).to_be_hidden()
    expect(page.locator("#active-title")).to_have_text("Draft the grant report")
    page.get_by_role("button", name="Edit the next action").click()
    field = page.locator("#edit-next_action")
    expect(field).to_have_value("Draft the grant report")  # what Cancel left is gone
    expect(field).to_be_focused()
    expect(message).to_be_empty()
    field.fill("Typed, then Escape")
    page.keyboard.press("Escape")  # the popover's own light dismiss
    expect(page.locator("#edit-next")).to_be_hidden()
    assert app.server.get("/state")["commitment"]["next_action"] == "Draft the grant report"


def test_access_keys_pause_resume_extend_and_finish(page, app, ui):
    expect = ui.expect
    active(app)
    page.reload()
    expect(ui.view(page, "active")).to_be_visible()
    keys = page.locator("[accesskey]")
    letters = [keys.nth(i).get_attribute("accesskey") for i in range(keys.count())]
    assert sorted(letters) == ["m", "n", "p"]  # one control each, none the browser's menus'
    shortcuts = page.locator("#shortcuts")
    expect(shortcuts).to_contain_text("Alt+P pause")
    expect(shortcuts).to_contain_text("Alt+N finish")
    expect(shortcuts).to_contain_text("Alt+M 5 more min")
    expect(shortcuts).to_contain_text("Alt+Shift in Firefox")

    access_key(page, "p")
    ui.wait_until(page, lambda: app.server.get("/state")["paused"], what="the pause")
    expect(page.locator("#phase")).to_have_text("Paused")
    expect(shortcuts).to_contain_text("Alt+P resume")
    access_key(page, "p")
    ui.wait_until(page, lambda: not app.server.get("/state")["paused"], what="the resume")
    expect(page.locator("#phase")).to_have_text("Active")

    before = app.server.get("/state")["commitment"]["extended_secs"]
    access_key(page, "m")
    ui.wait_until(
        page,
        lambda: app.server.get("/state")["commitment"]["extended_secs"] == before + 300,
        what="five more minutes",
    )
    access_key(page, "n")
    expect(ui.view(page, "review")).to_be_visible()


LOOKS = [(1280, 800, "light"), (1280, 800, "dark"), (390, 844, "light"), (390, 844, "dark")]


@pytest.mark.parametrize(("width", "height", "scheme"), LOOKS)
def test_the_editor_and_the_hints_fit_and_pass_axe(new_tabs, app, ui, width, height, scheme):
    expect = ui.expect
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    active(app)
    page, _ = tabs.open()
    # The keys are said where there are keys: not at a phone's width.
    hints = page.locator("#shortcuts")
    if width > 520:
        expect(hints).to_be_visible()
    else:
        expect(hints).to_be_hidden()
    ui.settled(page)
    ui.snap(page, f"active-hints-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    # The clock still leads the view: above the heading, larger than it.
    clock, heading = page.locator(".time-left-clock"), page.locator("#active-title")
    assert ui.box(clock)["y"] < ui.box(heading)["y"]
    assert ui.box(clock)["height"] > ui.box(heading)["height"]
    page.get_by_role("button", name="Edit the next action").click()
    expect(page.locator("#edit-next_action")).to_be_visible()
    ui.settled(page)
    ui.snap(page, f"active-edit-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0
