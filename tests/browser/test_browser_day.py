"""The day's queue in a real Chromium, by keyboard alone: two items added on /day (focus
back in Next action after each), the locked view's "Next up" with Plan it, planning opened
with the item's values, Start, and the item gone from the queue; once met, /day says planned
against done; /day axe-clean and never scrolling sideways, at 1280 and 390 px, light and
dark. Moves keep focus on the moved item's Up (Down once first), what a change says goes to
one live region that is never replaced, and Clear asks first in a popover."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def looks(new_tabs, ui) -> None:
    """/day at 1280 and 390 px, light and dark, each in a page opened in its scheme (so no
    colour is caught half way through a transition): no sideways scroll, saved for review."""
    for size, width, height in (("desktop", 1280, 800), ("phone", 390, 844)):
        for scheme in ("light", "dark"):
            tabs = new_tabs(viewport={"width": width, "height": height}, color_scheme=scheme)
            look, _ = tabs.open("/day")
            ui.expect(look.locator(".day-action")).to_have_count(1)
            ui.expect(look.locator("#day-done")).to_be_visible()
            ui.settled(look)
            assert ui.sideways_scroll(look) <= 0, f"/day scrolls sideways at {width} px"
            ui.snap(look, f"day-{size}-{scheme}")


def test_a_day_planned_by_keyboard_plan_it_and_start(app, new_tabs, ui):
    tabs = new_tabs(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page, watch = tabs.open("/day")
    ui.expect(page.get_by_role("heading", name="Your day", exact=False)).to_be_visible()

    ui.tab_to(page, "#day-next-action")
    page.keyboard.type("Write the intro")
    page.keyboard.press("Tab")
    page.keyboard.type("The intro is sent to Ana")
    page.keyboard.press("Tab")
    page.keyboard.type("30")
    page.keyboard.press("Enter")
    ui.expect(page.locator("#day-message")).to_have_text("Added: Write the intro")
    ui.wait_until(page, lambda: ui.focused_matches(page, "#day-next-action"), what="focus")
    page.keyboard.type("Review the PR")  # done-when and minutes wait until Plan it
    page.keyboard.press("Enter")
    ui.expect(page.locator(".day-action")).to_have_text(["Write the intro", "Review the PR"])
    ui.expect(page.locator("#day-fit")).to_contain_text("55 min planned")
    ui.settled(page)
    assert ui.axe_problems(page) == []

    ui.tab_to(page, "a[href='/']", back=True)
    page.keyboard.press("Enter")
    ui.expect(ui.view(page, "locked")).to_be_visible()
    ui.expect(page.locator("#next-up-action")).to_have_text("Write the intro")
    ui.settled(page)
    assert ui.axe_problems(page) == []
    ui.snap(page, "day-locked-next-up")
    ui.tab_to(page, "#next-up button")
    page.keyboard.press("Enter")
    ui.expect(ui.view(page, "planning")).to_be_visible()
    ui.expect(page.locator("#next_action")).to_have_value("Write the intro")
    ui.expect(page.locator("#success_condition")).to_have_value("The intro is sent to Ana")
    ui.expect(page.locator("#timebox_minutes")).to_have_value("30")
    ui.settled(page)
    assert ui.axe_problems(page) == []
    ui.tab_to(page, "#start")
    page.keyboard.press("Enter")
    ui.expect(ui.view(page, "active")).to_be_visible()

    state = app.server.get("/state")
    first = state["commitment"]["day_item_id"]
    assert first is not None
    day = app.server.get("/day.json")
    assert [i["next_action"] for i in day["items"]] == ["Review the PR"]
    assert first not in [i["id"] for i in day["items"]]
    assert watch.errors == [] and watch.csp_violations() == []

    # Met: the day's end says so, on the page as in /day.json.
    assert app.server.post("/finish")[0] == 200
    assert app.server.post("/end", {"outcome": "met"})[0] == 200
    assert app.server.get("/day.json")["tally"] == {
        "planned": 2,
        "met": 1,
        "missed": 0,
        "carried": 1,
    }
    page, _ = tabs.open("/day")
    done = page.locator("#day-done")
    ui.expect(done).to_have_text(
        "Today so far: 2 planned · 1 met · 0 missed · 1 left to carry over"
    )
    ui.settled(page)
    assert ui.axe_problems(page) == []
    looks(new_tabs, ui)
    # The week says done of planned in one quiet line, and still fits a phone.
    phone = new_tabs(viewport={"width": 390, "height": 844}, bypass_csp=True)  # for axe
    week, _ = phone.open("/week")
    ui.expect(week.locator("#week-planned")).to_contain_text("1 of 2 planned items done")
    ui.settled(week)
    assert ui.sideways_scroll(week) <= 0
    assert ui.axe_problems(week) == []
    ui.snap(week, "week-planned-phone")


def test_moves_keep_focus_the_message_is_one_live_region_and_clear_asks(app, new_tabs, ui):
    assert app.server.post("/day/clear")[0] == 200  # the server is the module's: start empty
    tabs = new_tabs(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page, watch = tabs.open("/day")
    ui.tab_to(page, "#day-next-action")
    for n, text in enumerate(("One", "Two", "Three"), 1):
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        ui.expect(page.locator("#day-message")).to_have_text(f"Added: {text}")
        ui.expect(page.locator(".day-action")).to_have_count(n)  # the new #day is in
        ui.settled(page)
        ui.wait_until(page, lambda: ui.focused_matches(page, "#day-next-action"), what="focus")
    # The live region is outside #day and stays the same element through every swap.
    page.evaluate("document.getElementById('day-message').dataset.kept = 'yes'")
    assert page.locator("#day #day-message").count() == 0

    ui.tab_to(page, "button[aria-label='Move up: Three']", back=True)
    page.keyboard.press("Enter")
    ui.expect(page.locator(".day-action")).to_have_text(["One", "Three", "Two"])
    ui.expect(page.locator("#day-message")).to_have_text("Moved to place 2.")
    up = "button[aria-label='Move up: Three']"
    ui.wait_until(page, lambda: ui.focused_matches(page, up), what="focus on Up")
    page.keyboard.press("Enter")  # again: first now, so its Down takes focus
    ui.expect(page.locator(".day-action")).to_have_text(["Three", "One", "Two"])
    down = "button[aria-label='Move down: Three']"
    ui.wait_until(page, lambda: ui.focused_matches(page, down), what="focus on Down")
    ui.expect(page.locator("#day-message")).to_have_text("Moved to place 1.")
    assert page.locator("#day-message").get_attribute("data-kept") == "yes"

    # Clear asks first: Keep them (focused) keeps them and gives focus back.
    opener = "#day .day-clear button"
    ui.tab_to(page, opener)
    page.keyboard.press("Enter")
    question = page.get_by_role("dialog")
    ui.expect(question).to_be_visible()
    ui.expect(question).to_contain_text("Clear the day? 3 items not started leave the queue.")
    ui.expect(question.get_by_role("button", name="Keep them")).to_be_focused()
    ui.settled(page)
    assert ui.axe_problems(page) == []
    ui.snap(page, "day-clear-question")
    page.keyboard.press("Enter")
    ui.expect(question).to_be_hidden()
    ui.wait_until(page, lambda: ui.focused_matches(page, opener), what="focus on the opener")
    assert len(app.server.get("/day.json")["items"]) == 3

    page.keyboard.press("Enter")
    ui.expect(question.get_by_role("button", name="Keep them")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # Clear
    ui.expect(page.locator("#day-message")).to_have_text("Cleared: 3 items.")
    ui.expect(page.locator(".day-action")).to_have_count(0)
    ui.wait_until(page, lambda: ui.focused_matches(page, "#day-title"), what="focus on heading")
    assert page.locator("#day-message").get_attribute("data-kept") == "yes"
    assert app.server.get("/day.json")["items"] == []
    assert watch.errors == [] and watch.csp_violations() == []
