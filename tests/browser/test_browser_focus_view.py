"""The focus view in Chromium: the active card leads with the clock and the next action,
large; Finish under them; the status lines (evidence, the drift guard) below, smaller; it
fits a phone and axe finds nothing serious, in light and dark."""

from __future__ import annotations

import pytest

from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser

PLAN = {
    "next_action": "Draft the budget section of the grant report",
    "success_condition": "Every line of the budget table has a figure and a source",
    "timebox_minutes": 45,
}


def font_px(page, selector: str) -> float:
    """The element's font size; waits out a push swapping it (the clock's, every second),
    whose old element, detached, has no computed style (NaN)."""
    for _ in range(100):
        px = page.locator(selector).first.evaluate(
            "e => e.isConnected ? parseFloat(getComputedStyle(e).fontSize) : NaN"
        )
        if px == px:  # not NaN
            return px
        page.wait_for_timeout(20)
    raise AssertionError(f"{selector} never settled into a font size")


def top(ui, page, selector: str) -> float:
    return ui.box(page.locator(selector).first)["y"]


@pytest.mark.parametrize(
    ("width", "height", "scheme"),
    [(1280, 800, "light"), (1280, 800, "dark"), (390, 844, "light"), (390, 844, "dark")],
)
def test_the_focus_view_leads_with_the_clock_and_the_next_action(
    new_tabs, app, ui, width, height, scheme
):
    walk_http(server_post(app.server), "active", **PLAN)
    app.server.post("/evidence/window", {"app": "code", "title": "budget.md — report"})
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    page, watch = tabs.open()
    ui.expect(ui.view(page, "active")).to_be_visible()
    ui.expect(page.locator("#evidence")).to_contain_text("budget.md")

    clock, heading = "#time-left .time-left-clock", "#active-title"
    finish = "#view button.primary"
    # In this order, top to bottom: the clock, the next action, Finish, then the status lines.
    order = [clock, heading, ".done-when", finish, "#evidence", "#drift-guard"]
    tops = [top(ui, page, s) for s in order]
    assert tops == sorted(tops), dict(zip(order, tops, strict=True))
    # The clock is the largest thing on the page, the next action next; the status smaller
    # than the page's text.
    body = font_px(page, "body")
    assert font_px(page, clock) >= 2 * font_px(page, heading)
    assert font_px(page, heading) > body
    assert font_px(page, "#evidence") < body and font_px(page, ".drift-source") < body
    # The first screen holds the clock, the action and Finish.
    assert top(ui, page, finish) < height
    assert ui.sideways_scroll(page) == 0
    card = ui.box(page.locator("#view .card"))
    # Centred under the clock: the buttons' row sits in the middle of the card.
    row = page.locator(".focus-main .actions > *")
    boxes = [ui.box(row.nth(i)) for i in range(row.count())]
    first = boxes[0]  # the first line of the row: what shares Finish's height band
    line = [
        b for b in boxes if first["y"] <= b["y"] + b["height"] / 2 <= first["y"] + first["height"]
    ]
    left, right = min(b["x"] for b in line), max(b["x"] + b["width"] for b in line)
    assert abs((left + right) / 2 - (card["x"] + card["width"] / 2)) < 3, (left, right, card)
    # The Alt-key legend is for a keyboard: shown on a desktop, not at a phone's width (nor on
    # a touch screen, loop.css).
    hints = page.locator("#shortcuts")
    if width > 520:
        ui.expect(hints).to_be_visible()
    else:
        ui.expect(hints).to_be_hidden()
    for line in ("#evidence .one-line", ".drift-line"):  # nothing spills out of the card
        box = ui.box(page.locator(line))
        assert card["x"] <= box["x"] and box["x"] + box["width"] <= card["x"] + card["width"]
    assert ui.axe_problems(page) == []
    ui.snap(page, f"focus-{width}-{scheme}")
    assert watch.errors == []
