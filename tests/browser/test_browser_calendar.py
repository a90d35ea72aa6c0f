"""The calendar in Chromium, against a real server whose ANTIDRIFT_CALENDAR is an .ics file
written by the test: planning names the next event and its free minutes, a timebox past it
is accepted and the active view names the clash; both fit a phone and a desktop, light and
dark, and pass axe (ANTIDRIFT_SHOTS: the PNGs for a person reviewing the look)."""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.support.browser import App
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.ics import event, write
from tests.support.server import RunningServer

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ANTIDRIFT_SHOTS")
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
FREE = re.compile(r"^Team standup at \d\d:\d\d — (\d+) min free$")
CLASH = re.compile(r"^This timebox ends (\d+) min into Team standup \(\d\d:\d\d\)\.$")


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available):
    tmp = tmp_path_factory.mktemp("calendar-browser")
    fake = FakeCLI(tmp / "bin")
    # The real clock: the standup starts 40 minutes from now (to the minute).
    at = (datetime.now().astimezone() + timedelta(minutes=41)).replace(second=0, microsecond=0)
    # Half an hour: the 60-minute timebox below ends some 20 minutes into it.
    ics = write(tmp / "work.ics", event("standup@x", "Team standup", at, None, minutes=30))
    env = {
        "PATH": path_with(tmp / "bin"),
        "ANTIDRIFT_AI_BACKEND": "claude",
        "ANTIDRIFT_NOTIFY": "off",
        "ANTIDRIFT_CALENDAR": str(ics),
    }
    server = RunningServer(tmp / "data", env=env)
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)
    server.start()
    try:
        yield App(server, fake, tmp)
    finally:
        server.stop()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_next_event_and_the_clash_fit_look_right_and_pass_axe(new_tabs, app, ui, scheme, size):
    expect = ui.expect
    viewport = DESK if size == "desktop" else PHONE
    page, _ = new_tabs(viewport=viewport, color_scheme=scheme, bypass_csp=True).open()
    problems: dict[str, list[str]] = {}

    def check(name: str) -> None:
        ui.settled(page)
        assert ui.sideways_scroll(page) == 0, f"{name} scrolls sideways"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"{name}-{size}-{scheme}.png"), full_page=True)
        if found := ui.axe_problems(page):
            problems[name] = found

    ui.plan(page)
    line = page.locator("#next-event")
    expect(line).to_be_visible()
    free = FREE.match(" ".join(line.inner_text().split()))
    assert free and 38 <= int(free[1]) <= 41, line.inner_text()
    assert page.locator("#timebox_minutes").get_attribute("list") == "free-minutes"
    check("planning-next-event")

    page.get_by_label("Next action", exact=True).fill("Write the intro")
    page.get_by_label("Done when", exact=True).fill("Two pages drafted")
    page.locator("#timebox_minutes").fill("60")
    # Before Start: the minutes typed run into the standup, said as they are typed (pushed).
    expect(page.locator("#plan-clash")).to_contain_text("60 min would run")
    expect(page.locator("#plan-clash")).to_contain_text("into Team standup at")
    check("planning-plan-clash")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    clash = page.locator("#event-clash")
    expect(clash).to_be_visible()
    into = CLASH.match(" ".join(clash.inner_text().split()))
    assert into and 19 <= int(into[1]) <= 22, clash.inner_text()
    assert app.server.get("/state")["calendar"]["next"]["title"] == "Team standup"
    check("active-event-clash")
    assert problems == {}


def test_during_a_meeting_the_page_names_it_and_pauses_for_it(browser, ui, tmp_path):
    """An event under way: planning names it and the next one, the active view offers Pause
    for it; the looks at 1280 and 390, light and dark (PNGs where ANTIDRIFT_SHOTS points)."""
    expect = ui.expect
    now = datetime.now().astimezone().replace(second=0, microsecond=0)
    ics = write(
        tmp_path / "day.ics",
        event("review@x", "Design review", now - timedelta(minutes=5), None, minutes=45),
        event("standup@x", "Team standup", now + timedelta(minutes=60), None, minutes=15),
    )
    env = {"ANTIDRIFT_AI_BACKEND": "claude", "ANTIDRIFT_NOTIFY": "off"}
    server = RunningServer(tmp_path / "data", env={**env, "ANTIDRIFT_CALENDAR": str(ics)})
    server.start()
    context = browser.new_context(viewport=DESK, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(server.base + "/")
        ui.plan(page)
        line = page.locator("#next-event")
        expect(line.locator(".event-now")).to_contain_text("In Design review until")
        expect(line.locator(".event-next")).to_contain_text("Next: Team standup at")
        page.get_by_label("Next action", exact=True).fill("Write the intro")
        page.get_by_label("Done when", exact=True).fill("Two pages drafted")
        page.locator("#timebox_minutes").fill("25")
        page.get_by_role("button", name="Start").click()
        meeting = page.locator("#meeting")
        expect(meeting).to_contain_text("In Design review until")
        looks = [(DESK, "light"), (PHONE, "light"), (DESK, "dark"), (PHONE, "dark")]
        for viewport, scheme in looks:
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            ui.settled(page)
            assert ui.sideways_scroll(page) == 0
            if SHOTS:
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                name = f"active-meeting-{viewport['width']}-{scheme}.png"
                page.screenshot(path=str(Path(SHOTS) / name), full_page=True)
        assert ui.axe_problems(page) == []
        meeting.get_by_role("button", name="Pause for it").click()
        expect(meeting).to_contain_text("Paused for it")
        assert server.get("/state")["paused"] is True
    finally:
        context.close()
        server.stop()
