"""The active phase speaks, in Chromium against a real server: the tab title in every state
and counting down, time's up (one desktop notification through a fake notify-send on PATH,
the title, a chime, focus), extend while active and from a time's-up review, and the offline
notice when the server goes away."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.server import RunningServer
from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser
# The time's-up test moves the server's clock to the end of its timebox (no minute's wait).
TEST_CLOCK = True

CLOCK = re.compile(r"^(?:(\d+):)?(\d\d):(\d\d) · ")


def seconds_in(title: str) -> int:
    """The time left a title starts with, in seconds."""
    match = CLOCK.match(title)
    assert match, f"the title does not start with the time left: {title!r}"
    hours, minutes, secs = (int(g or 0) for g in match.groups())
    return hours * 3600 + minutes * 60 + secs


def start(page, ui, action: str, minutes: int, done: str = "It is done", plan=True) -> None:
    """(Locked ->) planning -> active by clicking, as a person would."""
    if plan:
        ui.plan(page)
    page.get_by_label("Next action", exact=True).fill(action)
    page.get_by_label("Done when", exact=True).fill(done)
    page.get_by_label("Minutes", exact=True).fill(str(minutes))
    page.get_by_role("button", name="Start").click()
    ui.expect(ui.view(page, "active")).to_be_visible()


def test_the_title_matches_the_view_in_every_state_and_counts_down(page, app, ui):
    expect = ui.expect
    expect(page).to_have_title("No commitment · AntiDrift")
    ui.plan(page)
    expect(page).to_have_title("Planning · AntiDrift")
    start(page, ui, "Write the grant report", 20, plan=False)
    expect(page).to_have_title(re.compile(r"^(20:00|19:5\d) · Write the grant report · AntiDrift$"))
    first = page.title()
    ui.wait_until(page, lambda: page.title() != first, timeout=5, what="the title to tick")
    second = page.title()
    assert seconds_in(second) < seconds_in(first)
    ui.wait_until(page, lambda: page.title() != second, timeout=5, what="another tick")
    assert seconds_in(page.title()) < seconds_in(second)
    # The clock on the page and the title agree.
    clock = page.locator(".time-left-clock").text_content()
    assert abs(seconds_in(f"{clock} · ") - seconds_in(page.title())) <= 1
    page.get_by_role("button", name="Finish").click()
    expect(page).to_have_title("Review · Write the grant report · AntiDrift")
    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(page).to_have_title("No commitment · AntiDrift")


def test_a_title_over_an_hour_shows_hours(page, app, ui):
    start(page, ui, "Long haul", 90)
    ui.expect(page).to_have_title(re.compile(r"^1:(30:00|29:5\d) · Long haul · AntiDrift$"))


def test_times_up_notifies_once_says_so_chimes_and_extends_from_the_review(new_tabs, app, ui):
    """A one-minute timebox runs out on the server's test clock (on a phone, to check the
    time's-up review's layout there too)."""
    expect = ui.expect
    tabs = new_tabs(viewport={"width": 390, "height": 844}, has_touch=True)
    page, _ = tabs.open()
    start(page, ui, "Send the invoice to Ada", 1, done="Ada has it")
    left = seconds_in(page.title())
    assert 50 < left <= 60
    app.server.clock.advance(left - 3)  # three seconds before the deadline
    expect(page).to_have_title(re.compile(r"^00:0[0-4] · Send the invoice to Ada · AntiDrift$"))
    assert app.notifier.calls() == []
    app.server.clock.advance(3)  # and the deadline, on the same clock
    expect(page).to_have_title(re.compile(r"^Time's up · Send the invoice to Ada · AntiDrift$"))
    expect(ui.view(page, "review")).to_be_visible()
    ui.wait_until(page, lambda: app.notifier.calls(), timeout=5, what="the notification")
    # Exactly one, naming the next action, however many ticks pass.
    app.server.ticks(2)
    [argv] = app.notifier.calls()
    title, body = argv[-2:]
    assert "Time's up" in title
    assert "Send the invoice to Ada" in body
    # The page says it too: the eyebrow, the chime (this page was clicked, so Chromium lets
    # it play), and focus on the review's heading.
    expect(page.locator(".eyebrow")).to_contain_text("Time's up")
    # A screen reader hears it from the polite live region, not only the action's name.
    expect(page.locator("#announce[role=status][aria-live=polite]")).to_have_text("Time's up.")
    page.wait_for_function(
        "() => { const a = document.querySelector('#chime audio');"
        " return !!a && (a.currentTime > 0 || a.ended); }",
        timeout=5000,
    )
    assert ui.active_id(page) == "review-title"
    assert ui.sideways_scroll(page) == 0
    # Not done yet: five more minutes, from the review.
    page.get_by_role("button", name="+5 min").click()
    expect(ui.view(page, "active")).to_be_visible()
    expect(page).to_have_title(
        re.compile(r"^(05:00|04:5\d) · Send the invoice to Ada · AntiDrift$")
    )
    expect(page.locator("#time-left")).to_contain_text("(1 planned, 5 added)")
    state = app.server.get("/state")
    assert state["runtime_state"] == "active"
    assert (state["commitment"]["timebox_secs"], state["commitment"]["extended_secs"]) == (60, 300)
    assert len(app.notifier.calls()) == 1


def test_five_minutes_left_is_said_once_in_the_title_and_the_live_region(page, app, ui):
    """A 15-minute timebox, moved on the server's test clock to five minutes left."""
    expect = ui.expect
    start(page, ui, "Review the pull request", 15)
    region = page.locator("#announce[role=status][aria-live=polite]")
    expect(region).to_have_text("")
    app.server.clock.advance(seconds_in(page.title()) - 300)
    expect(page).to_have_title(re.compile(r"^5 min left · 0[45]:\d\d · Review the pull request"))
    expect(region).to_have_text("5 minutes left.")
    app.server.clock.advance(60)  # a minute later the title is the clock's again, quietly
    expect(page).to_have_title(re.compile(r"^0[34]:\d\d · Review the pull request"))
    expect(region).to_have_text("")


def test_extend_while_active_moves_the_clock_and_says_so(page, app, ui):
    expect = ui.expect
    start(page, ui, "Refactor the parser", 20)
    before = seconds_in(page.title())
    page.get_by_role("button", name="+10 min").click()
    expect(page.locator("#time-left")).to_contain_text("left of 30 min (20 planned, 10 added)")
    ui.wait_until(
        page, lambda: seconds_in(page.title()) > before + 500, what="the title to gain time"
    )
    assert app.server.get("/state")["commitment"]["extended_secs"] == 600
    expect(page.locator("#active-message")).to_be_empty()


def test_extend_past_eight_hours_says_why_in_place(page, app, ui):
    start(page, ui, "All day", 475)
    page.get_by_role("button", name="+10 min").click()
    ui.expect(page.locator("#active-message")).to_contain_text("480")
    assert app.server.get("/state")["commitment"]["extended_secs"] == 0


STATES = ("locked", "planning", "active", "review")


def test_the_offline_notice_shows_within_5_s_and_clears_when_back_in_every_state(
    new_tabs, app, ui, tmp_path
):
    """Each state on a server of its own (locked on the module's), its page in a context of
    its own; the four servers stop together and start together, so the four pages wait out
    one notice delay and one restart, not four."""
    expect = ui.expect
    plan = {"next_action": "Read the spec", "success_condition": "Notes", "timebox_minutes": 30}
    # The others run as a user starts them, in this module's environment (the fake claude).
    others = [RunningServer(tmp_path / state, env=app.server.env) for state in STATES[1:]]
    servers = [app.server, *others]
    with ThreadPoolExecutor(len(servers)) as pool:
        starting = [pool.submit(server.start) for server in others]
        try:
            pages = []
            for state, server, started in zip(STATES, servers, [None, *starting], strict=True):
                if started is not None:
                    started.result()  # the locked page opened while the others started
                walk_http(server_post(server), state, **plan)
                tabs = new_tabs()
                tabs.base = server.base
                pages.append(tabs.open(before=ui.fake_timers, wait_until="commit"))
            for state, (page, watch) in zip(STATES, pages, strict=True):
                expect(ui.view(page, state)).to_be_visible()
                ui.wait_until(page, lambda w=watch: w.frames, what=f"{state}: the first push")
            # Pushes keep each notice hidden, second after second: four ticks' worth, counted
            # as they arrive (the four pages count at the same time).
            beats = [len(watch.frames_with('id="offline"')) for _, watch in pages]
            for state, (page, watch), before in zip(STATES, pages, beats, strict=True):
                ui.wait_until(
                    page,
                    lambda w=watch, n=before: len(w.frames_with('id="offline"')) >= n + 4,
                    timeout=10,
                    what=f"{state}: four ticks' pushes",
                )
            for page, _ in pages:
                expect(page.locator("#offline")).to_be_hidden()

            sockets = [len(watch.sockets) for _, watch in pages]
            lost = time.monotonic()  # SIGTERM closes each page's socket first thing
            assert None not in list(pool.map(RunningServer.stop, servers))
            for state, (page, _) in zip(STATES, pages, strict=True):
                notice = page.locator("#offline")
                left = max(5 - (time.monotonic() - lost), 0.1)
                notice.wait_for(state="visible", timeout=left * 1000)
                assert time.monotonic() - lost < 5, state
                expect(notice).to_contain_text("reconnecting")

            restarted = time.monotonic()
            list(pool.map(RunningServer.start, servers))
            for state, (page, watch), before in zip(STATES, pages, sockets, strict=True):
                ui.reconnect(
                    page,
                    lambda w=watch, n=before: (
                        len(w.sockets) > n and any(t > restarted for t, _ in w.frames)
                    ),
                    timeout=30,
                    what=f"{state}: a reconnect that brings pushes",
                )
                expect(page.locator("#offline")).to_be_hidden(timeout=30_000)
                expect(ui.view(page, state)).to_be_visible()
        finally:
            for future in starting:
                future.exception()  # started (or failed to) before any is stopped
            list(pool.map(RunningServer.stop, others))
