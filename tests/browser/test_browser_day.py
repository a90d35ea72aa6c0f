"""The day's queue in a real Chromium, by keyboard alone: two items added on /day (focus
back in Next action after each), the locked view's "Next up" with Plan it, planning opened
with the item's values, Start, and the item gone from the queue; /day axe-clean and never
scrolling sideways, at 1280 and 390 px, light and dark."""

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
            ui.expect(look.locator(".day-action")).to_have_count(2)
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
    looks(new_tabs, ui)

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
