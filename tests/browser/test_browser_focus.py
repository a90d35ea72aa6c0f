"""Focus after every button (issue 19, Access): in Chromium, after each button of each view
the focus is on something (the next sensible control, the new view's heading or a sentence
saying what happened), never left on <body> — including the buttons whose own element goes
away with the answer (Stop coach, Reflect) and the history's correct and remove. The drift
banner's answers are in test_browser_drift.py."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

ON_BODY = "!document.activeElement || document.activeElement === document.body"
SETTLE = 1.2  # seconds: a push that follows an answer comes within the tick


def kept(page, ui, what: str) -> str:
    """The focused element's id once the answer and its pushes have settled; fails when the
    focus is then on the page (a push and the answer may cross: a moment on <body> between
    them is not the end state, so it is the settled state that is checked)."""
    page.wait_for_timeout(SETTLE * 1000)
    ui.wait_until(page, lambda: not page.evaluate(ON_BODY), timeout=3, what=f"focus after {what}")
    page.wait_for_timeout(300)
    assert not page.evaluate(ON_BODY), f"focus fell to the page after {what}"
    return ui.active_id(page)


def press(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def test_focus_is_never_left_on_the_page_after_a_button(page, app, ui, tmp_path):
    expect = ui.expect
    seen: dict[str, str] = {}

    def after(what: str) -> str:
        seen[what] = kept(page, ui, what)
        return seen[what]

    press(page, "Plan")
    expect(ui.view(page, "planning")).to_be_visible()
    assert after("Plan") == "intent"

    app.fake.configure(delay=30)
    page.get_by_label("Rough intent").fill("the quarterly report")
    press(page, "Sharpen")
    expect(ui.coach(page, "pending")).to_be_visible()
    after("Sharpen")
    press(page, "Stop coach")  # its button goes with the pending line
    expect(ui.coach(page, "idle")).to_be_visible()
    assert after("Stop coach") == "sharpen"

    go = tmp_path / "go"
    app.fake.configure(wait_for=str(go))  # the coach answers when the test says
    press(page, "Sharpen")
    expect(ui.coach(page, "pending")).to_be_visible()
    mine = "Call Dana about the numbers"  # typed while the coach thinks: kept, Use beside it
    page.locator("#next_action").fill(mine)
    ui.wait_until(
        page,
        lambda: app.server.get("/state").get("draft", {}).get("next_action") == mine,
        what="the typed draft on the server",
    )
    go.touch()
    expect(ui.coach(page, "ready")).to_be_visible()
    after("Sharpen (ready)")
    page.get_by_role("button", name="Use the coach's next action").click()
    assert after("Use") == "next_action"

    press(page, "Cancel planning")
    expect(ui.view(page, "locked")).to_be_visible()
    after("Cancel planning")
    press(page, "Plan")
    expect(ui.view(page, "planning")).to_be_visible()
    page.locator("#next_action").fill("")
    page.locator("#success_condition").fill("")
    press(page, "Start")  # refused: focus on the first field at fault
    expect(page.locator("#next_action")).to_have_attribute("aria-invalid", "true")
    assert after("Start (refused)") == "next_action"
    page.locator("#next_action").fill("Write the intro")
    page.locator("#success_condition").fill("Three paragraphs")
    press(page, "Start")
    expect(ui.view(page, "active")).to_be_visible()
    assert after("Start") == "active-title"

    press(page, "+5 min")
    expect(page.locator("#time-left")).to_contain_text("5 added")
    after("+5 min")
    press(page, "Pause")
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    after("Pause")
    press(page, "Resume")
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    after("Resume")
    press(page, "Finish")
    expect(ui.view(page, "review")).to_be_visible()
    after("Finish")
    press(page, "Undo Finish")
    expect(ui.view(page, "active")).to_be_visible()
    after("Undo Finish")
    press(page, "Finish")
    expect(ui.view(page, "review")).to_be_visible()
    after("Finish (again)")

    page.get_by_role("button", name="Reflect").click()  # its button goes while the coach reads
    after("Reflect")
    press(page, "Save to history")  # no outcome chosen: refused, the button keeps the focus
    expect(page.locator("#review-message")).not_to_be_empty()
    after("Save to history (refused)")
    page.locator("label[for=outcome-met]").click()
    press(page, "Save to history")
    expect(ui.view(page, "locked")).to_be_visible()
    after("Save to history")
    press(page, "Again")  # the closure's one-click next: the same plan, planning
    expect(ui.view(page, "planning")).to_be_visible()
    after("Again")
    press(page, "Cancel planning")
    expect(ui.view(page, "locked")).to_be_visible()

    # The history's correct and remove: the page they return to says so and takes the focus.
    page.goto(app.base + "/insights")
    page.locator(".entry-tools summary").first.click()
    page.locator(".correct-form label.outcome-missed").first.click()
    page.locator(".correct-form button[type=submit]").first.click()
    expect(page.locator("#done")).to_have_text("Correction saved.")
    assert after("Save (correction)") == "done"
    page.locator(".entry-tools summary").first.click()
    page.locator(".remove-link").first.click()
    press(page, "Remove")
    expect(page.locator("#done")).to_contain_text("Removed from history")
    assert after("Remove") == "done"
    assert len(seen) == 20, seen
