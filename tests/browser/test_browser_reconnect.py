"""A server restart under an open page (issue 4, scenario 3): the socket closes with 1012,
htmx reconnects, what the person typed is still there, and the page keeps working."""

from __future__ import annotations

import time

import pytest

from tests.support.fake_cli import DEFAULT_PROPOSAL
from tests.support.timing import assert_within

pytestmark = pytest.mark.browser


def test_a_server_restart_keeps_what_was_typed(tabs, app, ui):
    expect = ui.expect
    page, watch = tabs.open(before=ui.fake_timers)  # to skip htmx's reconnect back-off
    ui.plan(page)
    page.get_by_label("Rough intent").fill("write the grant report")
    page.get_by_label("Next action", exact=True).fill("Draft section 2")
    page.get_by_label("Done when", exact=True).fill("Budget table filled in")
    page.get_by_label("Minutes", exact=True).fill("45")
    page.get_by_label("Done when", exact=True).focus()
    # The planning page's own socket is up (it is brought up to date on connect).
    ui.wait_until(
        page,
        lambda: (
            any("planning" in url for url in watch.sockets)
            and bool(watch.frames_with('id="coach"'))
        ),
        what="the planning socket",
    )

    sockets = len(watch.sockets)
    stopped = time.monotonic()
    assert app.server.stop() is not None, "the server did not exit on SIGTERM"
    assert_within(time.monotonic() - stopped, 5, "the exit on SIGTERM")
    # The mark is taken with the server down, once the page's sockets are seen closed (so every
    # frame the old server sent is in): a frame after it can only come from the restarted
    # server. A retry that failed while it was down adds a socket but no frame.
    ui.wait_until(page, lambda: len(watch.closed) >= sockets, what="the old socket to close")
    down = time.monotonic()
    app.server.start()

    # A connect is brought up to date in one push, coach included: what was typed is checked
    # after it, the push that could have clobbered it.
    ui.reconnect(
        page,
        lambda: len(watch.sockets) > sockets and bool(watch.frames_with('id="coach"', since=down)),
        timeout=20,
        what="the page to reconnect to the restarted server",
    )
    assert watch.sockets[-1].endswith("view=planning&c=&p="), watch.sockets[-1]

    expect(ui.view(page, "planning")).to_be_visible()
    expect(ui.coach(page, "idle")).to_be_visible()  # coach state is never persisted
    expect(page.locator("#intent")).to_have_value("write the grant report")
    expect(page.locator("#next_action")).to_have_value("Draft section 2")
    expect(page.locator("#success_condition")).to_have_value("Budget table filled in")
    expect(page.locator("#timebox_minutes")).to_have_value("45")

    # The restarted server holds what was typed (the page sent it again as its socket
    # opened), so it keeps working: Sharpen keeps the typed fields and offers its own text
    # beside them, then Start.
    ui.wait_until(
        page,
        lambda: (
            (app.server.get("/state").get("draft") or {}).get("next_action") == "Draft section 2"
        ),
        what="the draft on the restarted server",
    )
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value("Draft section 2")
    expect(page.locator("#suggest-next_action")).to_contain_text(DEFAULT_PROPOSAL["next_action"])
    expect(page.locator("#intent")).to_have_value("write the grant report")
    page.get_by_label("Minutes", exact=True).fill("20")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    expect(page.get_by_role("heading", name="Draft section 2")).to_be_visible()
    expect(page.locator("#time-left")).to_contain_text("left of 20 min")


def test_what_was_typed_while_the_server_was_away_is_saved_when_it_comes_back(tabs, app, ui):
    """Typed with the server stopped (each save fails), the draft reaches the restarted server
    when the page's socket opens again (htmx:wsOpen), and a reload shows it."""
    expect = ui.expect
    page, watch = tabs.open(before=ui.fake_timers)  # to skip htmx's reconnect back-off
    ui.plan(page)
    ui.wait_until(
        page,
        lambda: any("planning" in url for url in watch.sockets),
        what="the planning socket",
    )
    sockets = len(watch.sockets)
    assert app.server.stop() is not None, "the server did not exit on SIGTERM"
    ui.wait_until(page, lambda: len(watch.closed) >= sockets, what="the old socket to close")

    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    typed = {"next_action": "Typed while it was away", "success_condition": "It is all kept"}
    page.get_by_label("Next action", exact=True).fill(typed["next_action"])
    page.get_by_label("Done when", exact=True).fill(typed["success_condition"])
    ui.wait_until(
        page,
        lambda: sum(url.endswith("/planning/draft") for url in failed) >= 2,
        what="the saves to fail with the server away",
    )
    # Nothing is typed from here on: only the page's resend on reconnect can bring it.
    app.server.start()

    def stored() -> bool:
        draft = app.server.get("/state").get("draft") or {}
        return all(draft.get(name) == value for name, value in typed.items())

    ui.reconnect(page, stored, timeout=20, what="the draft typed while away to be saved")
    expect(page.locator("#next_action")).to_have_value(typed["next_action"])
    page.reload()
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(typed["next_action"])
    expect(page.locator("#success_condition")).to_have_value(typed["success_condition"])
