"""The 15/25/50 buttons beside Minutes in Chromium: a click puts the minutes in the field and
the focus on it; at 1280 and 390 wide, light and dark, with no serious axe-core violation."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def font_px(page, selector: str) -> float:
    return page.locator(selector).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


VIEWS = [(1280, 800, "light"), (1280, 800, "dark"), (390, 844, "light"), (390, 844, "dark")]


@pytest.mark.parametrize(("width", "height", "scheme"), VIEWS)
def test_a_minute_pick_fills_minutes_and_fits(new_tabs, app, ui, width, height, scheme):
    expect = ui.expect
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    page, watch = tabs.open()
    ui.plan(page)
    # The planning view's socket opens, and on open its fields send the draft again (the
    # reconnect's resend): let those land first, or a slow one could arrive after the pick.
    ui.wait_until(page, lambda: any("view=planning" in u for u in watch.sockets), what="socket")
    pushed = len(watch.frames)
    ui.wait_until(page, lambda: len(watch.frames) > pushed, what="the socket's first push")
    ui.settled(page)
    page.get_by_role("button", name="50 minutes").click()
    minutes = page.get_by_label("Minutes", exact=True)
    expect(minutes).to_have_value("50")
    expect(minutes).to_be_focused()
    assert app.server.get("/state")["draft"]["timebox_minutes"] == "50"
    # "1 to 480" on one line, on the row with the field, at every width down to a phone's.
    hint, field = ui.box(page.locator(".minutes-row .hint")), ui.box(minutes)
    assert hint["height"] < 1.5 * font_px(page, ".minutes-row .hint") * 1.55, hint
    assert field["y"] <= hint["y"] + hint["height"] / 2 <= field["y"] + field["height"], hint
    ui.snap(page, f"minutes-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0
