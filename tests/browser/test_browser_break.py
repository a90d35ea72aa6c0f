"""The break in Chromium against a real server on a test clock: Break from the closure, its
clock (a timer), the tab's title and icon, and at its end "Break over" with the focus on Plan
the next and one notification; at 1280 and 390 wide, light and dark, with no serious or
critical axe-core violation."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

TEST_CLOCK = True
PLAN = {"next_action": "Draft the grant report", "success_condition": "Sent to Ada"}


def ended(app, outcome: str = "met") -> None:
    for path, body in (
        ("/planning", None),
        ("/commitment", {**PLAN, "timebox_minutes": "25"}),
        ("/finish", None),
        ("/end", {"outcome": outcome}),
    ):
        assert app.server.post(path, body)[0] == 200


def test_break_from_the_closure_counts_down_and_ends_with_plan_the_next(page, app, ui):
    expect = ui.expect
    ended(app)
    page.reload()
    page.get_by_role("button", name="Break", exact=True).click()
    expect(ui.view(page, "break")).to_be_visible()
    expect(page.get_by_role("timer", name="Break left")).to_be_visible()
    expect(page).to_have_title(re.compile(r"^Break · 0[45]:\d\d · AntiDrift$"))
    expect(page.locator("#icon")).to_have_attribute("href", re.compile("state=break"))
    expect(page.get_by_role("button", name="End the break")).to_be_focused()
    assert app.server.get("/state")["break"]["long"] is False

    app.server.clock.advance(5 * 60)
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.locator("#closure .eyebrow")).to_have_text("Break over")
    expect(page.get_by_role("button", name="Plan the next")).to_be_focused()
    expect(page).to_have_title("Break over · AntiDrift")
    expect(page.locator("#chime audio")).to_have_count(1)
    ui.wait_until(page, lambda: any("Break over" in " ".join(c) for c in app.notifier.calls()))
    assert app.server.get("/state")["break"] is None

    ended(app)
    page.get_by_role("button", name="Break", exact=True).click()
    expect(page.get_by_role("button", name="End the break")).to_be_focused()
    page.keyboard.press("Enter")  # End the break, by keyboard: it has the focus
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.get_by_role("button", name="Plan the next")).to_be_focused()


VIEWS = [(1280, 800, "light"), (1280, 800, "dark"), (390, 844, "light"), (390, 844, "dark")]


@pytest.mark.parametrize(("width", "height", "scheme"), VIEWS)
def test_the_break_view_fits_and_passes_axe(new_tabs, app, ui, width, height, scheme):
    expect = ui.expect
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    ended(app, "missed")
    page, _ = tabs.open()
    expect(page.locator("#closure")).to_be_visible()
    ui.snap(page, f"break-closure-{width}-{scheme}")
    assert app.server.post("/break")[0] == 200
    expect(ui.view(page, "break")).to_be_visible()
    ui.snap(page, f"break-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0
    # Break over: it leads, and the missed outcome under it is a calm line, not a red shout
    # larger than anything else on the card.
    app.server.clock.advance(5 * 60)
    heading = page.locator("#locked-title")
    expect(heading).to_have_text("Before the break: missed")
    ui.settled(page)
    eyebrow = page.locator("#closure .eyebrow")
    assert ui.box(eyebrow)["y"] < ui.box(heading)["y"]
    looks = heading.evaluate(
        """h => { const s = getComputedStyle(h), body = getComputedStyle(document.body);
            return [parseFloat(s.fontSize) / parseFloat(body.fontSize),
                    s.color === body.color]; }"""
    )
    assert looks[0] <= 1.3 and looks[1], looks  # about the text's size, in the page's ink
    ui.snap(page, f"break-over-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0
