"""Offline tells the truth, in Chromium against a real server that is really stopped: the
countdown (role="timer", drawn by CSS from the deadline the server rendered) keeps counting,
the view's buttons take no click and no key while the notice says why, the notice sits below
the header, and after the restart the server's values are back in charge."""

from __future__ import annotations

import re
import time

import pytest

from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser

CLOCK = re.compile(r"^(?:(\d+):)?(\d\d):(\d\d)$")


def seconds(text: str) -> int:
    match = CLOCK.match(text)
    assert match, f"not a clock (MM:SS or H:MM:SS): {text!r}"
    hours, minutes, secs = (int(g or 0) for g in match.groups())
    return hours * 3600 + minutes * 60 + secs


def server_clock(page) -> str:
    """The server's own text for the time left (kept in the widget, hidden under the CSS)."""
    return page.locator("#time-left .clock-text").text_content()


def clock_animations(page) -> int:
    """The animations running on the clock's widget (its CSS countdown)."""
    return page.evaluate("document.querySelector('#time-left').getAnimations().length")


def finish_is_inert(page) -> bool:
    finish = page.get_by_role("button", name="Finish")
    return finish.evaluate("b => getComputedStyle(b).interactivity") == "inert"


def active(app, minutes: int, action: str = "Read the spec") -> None:
    plan = {"next_action": action, "success_condition": "Notes", "timebox_minutes": minutes}
    walk_http(server_post(app.server), "active", **plan)


@pytest.mark.parametrize(
    ("minutes", "shape"),
    [(30, r"^(30:00|29:5\d)$"), (1, r"^(01:00|00:[0-5]\d)$"), (90, r"^1:(30:00|29:5\d)$")],
)
def test_the_css_clock_shows_minutes_and_seconds_as_the_server_does(tabs, app, ui, minutes, shape):
    """Leading zeros, hours only from an hour up: the CSS clock and the server's text agree."""
    active(app, minutes)
    page, watch = tabs.open()
    ui.expect(ui.view(page, "active")).to_be_visible()
    ui.wait_until(page, lambda: watch.frames_with('id="time-left"'), what="a pushed clock")
    shown = ui.timer_text(page)
    assert re.match(shape, shown), shown
    assert abs(seconds(shown) - seconds(server_clock(page))) <= 1
    # Between pushes nothing runs on the clock (an animation would be recalculated every
    # frame, all day): it counts by itself only once a push is missed.
    ui.wait_until(page, lambda: clock_animations(page) == 0, what="a clock idle between pushes")


def test_offline_the_clock_counts_buttons_refuse_and_a_restart_brings_it_back_in_step(
    tabs, app, ui
):
    expect = ui.expect
    active(app, 30)
    page, watch = tabs.open(before=ui.fake_timers)  # to skip htmx's reconnect back-off
    expect(ui.view(page, "active")).to_be_visible()
    ui.wait_until(page, lambda: len(watch.frames_with('id="offline"')) >= 3, what="ticks")
    notice = page.locator("#offline")
    expect(notice).to_be_hidden()
    assert not finish_is_inert(page)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}"))

    sockets = len(watch.sockets)
    assert app.server.stop() is not None
    # From here on nothing is pushed until the restart: counted once the page's socket is seen
    # closed (every frame it carried is in by then, however late Python was handed it).
    ui.wait_until(page, lambda: len(watch.closed) >= sockets, what="the socket to close")
    frames = len(watch.frames)
    expect(notice).to_be_visible(timeout=6_000)
    expect(notice).to_contain_text("Buttons wait until it is back")
    assert clock_animations(page) == 1, "the clock does not count by itself"
    # The clock keeps counting down with nobody pushing it, two seconds on from the notice
    # showing (they run while the buttons are checked below).
    first = seconds(ui.timer_text(page))

    # Finish takes no click and no key: nothing is sent, and the notice says why.
    assert finish_is_inert(page)
    finish = page.get_by_role("button", name="Finish")
    box = finish.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    finish.evaluate("b => b.focus()")
    assert not ui.focused_matches(page, "button"), "an inert button took focus"
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    page.wait_for_timeout(300)  # a click that reached htmx would be sent at once
    assert not [r for r in sent if "/finish" in r], sent
    expect(notice).to_be_visible()
    expect(ui.view(page, "active")).to_be_visible()

    # The notice sits under the header, never over it.
    header = page.locator(".masthead").bounding_box()
    below = notice.bounding_box()
    assert below["y"] >= header["y"] + header["height"] - 1, (header, below)

    ui.wait_until(
        page, lambda: seconds(ui.timer_text(page)) <= first - 2, timeout=6, what="the clock"
    )
    assert len(watch.frames) == frames, "something was pushed with the server stopped"
    assert re.match(r"^2\d:\d\d$", ui.timer_text(page))

    restarted = time.monotonic()
    app.server.start()
    # htmx retries with a growing, jittered delay: the page's clock jumps past it.
    ui.reconnect(
        page,
        lambda: len(watch.sockets) > sockets and any(t > restarted for t, _ in watch.frames),
        timeout=40,
        what="a reconnect that brings pushes",
    )
    expect(notice).to_be_hidden(timeout=10_000)
    ui.wait_until(page, lambda: not finish_is_inert(page), timeout=5, what="buttons back")
    left = app.server.get("/state")["commitment"]
    assert left is not None
    assert abs(seconds(ui.timer_text(page)) - seconds(server_clock(page))) <= 1
    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()


LOOKS = [(1280, 800, "light"), (390, 844, "dark")]


def test_the_offline_state_passes_axe_in_each_look(new_tabs, app, ui):
    """Both looks, each in a context of its own, on one server stopped once."""
    active(app, 30)
    pages = []
    for width, height, scheme in LOOKS:
        tabs = new_tabs(
            viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
        )
        pages.append(tabs.open(wait_until="commit"))  # both load at once
    for page, watch in pages:
        ui.expect(ui.view(page, "active")).to_be_visible()
        ui.wait_until(page, lambda w=watch: w.frames, what="the socket")
    assert app.server.stop() is not None
    for page, _ in pages:
        ui.expect(page.locator("#offline")).to_be_visible(timeout=6_000)
        ui.wait_until(page, lambda p=page: finish_is_inert(p), timeout=3, what="inert buttons")
        # The notice's 0.2 s fade-in, done before axe reads colours.
        ui.expect(page.locator("#offline")).to_have_css("opacity", "1", timeout=3_000)
    for (width, _, scheme), (page, _) in zip(LOOKS, pages, strict=True):
        if width < 640:  # a phone: the notice lies over the header, never over the view
            notice = page.locator("#offline").bounding_box()
            view = page.locator("#view").bounding_box()
            assert notice["y"] + notice["height"] <= view["y"], (notice, view)
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            notice = page.locator("#offline").bounding_box()
            top = page.locator("#view").bounding_box()["y"]
            assert notice["y"] + notice["height"] <= top, "scrolled, it covers the view"
            page.evaluate("window.scrollTo(0, 0)")
        ui.snap(page, f"offline-{width}-{scheme}")
        assert ui.axe_problems(page) == [], (width, scheme)
        assert ui.sideways_scroll(page) == 0, (width, scheme)
    app.server.start()
