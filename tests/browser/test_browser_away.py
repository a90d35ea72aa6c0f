"""Time away in Chromium against a real server reading a real aw-server's afk bucket: the
active view while away (the title, the guard's line) and back ("You were away 4 min" with
its two answers), at 1280 and 390 wide, light and dark, with no serious or critical axe-core
violation; Count it as a pause by keyboard, the focus landing on the card's heading."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.support import aw_server
from tests.support.browser import App
from tests.support.fake_judge import drift_server

pytestmark = pytest.mark.browser

PLAN = {"next_action": "Draft the grant report", "success_condition": "Sent to Ada"}
VIEWS = [
    (1280, 800, "light"),
    (1280, 800, "dark"),
    (390, 844, "light"),
    (390, 844, "dark"),
]


@pytest.fixture(scope="module")
def aw(tmp_path_factory, _chromium_available) -> Iterator[aw_server.AwServer]:
    with aw_server.window_server(tmp_path_factory.mktemp("aw")) as server:
        yield server


@pytest.fixture(scope="module")
def app(tmp_path_factory, aw) -> Iterator[App]:
    """This module's server (the drift guard's, its fake judge): windows and idle time from
    the aw-server, on a test clock."""
    server, judge, notifier = drift_server(
        tmp_path_factory.mktemp("browser-away"),
        test_clock=True,
        ANTIDRIFT_WINDOW_SOURCE="activitywatch",
        ANTIDRIFT_AW_URL=aw.url,
        ANTIDRIFT_SAMPLE_INTERVAL="0.2",
        ANTIDRIFT_AWAY_AFTER="3",
    )
    with server:
        yield App(server, judge, server.data_dir.parent, notifier)


def wait_for(app: App, check, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while not check(state := app.server.get("/state")):
        assert time.monotonic() < deadline, f"never came: {state}"
        time.sleep(0.1)
    return state


def away_then_back(app: App, aw, page, ui, name: str) -> None:
    """Active five minutes; input stopped 250 s ago (aw-watcher-afk turned afk); then back."""
    expect = ui.expect
    aw.reset_afk_bucket()
    aw.heartbeat("code", "report.md — editor")
    assert app.server.post("/planning")[0] == 200
    assert app.server.post("/commitment", {**PLAN, "timebox_minutes": "25"})[0] == 200
    app.server.clock.advance(300)
    stopped = datetime.now(UTC) - timedelta(seconds=250)
    aw.afk_ping(False, stopped)
    aw.afk_ping(True, stopped, duration=250)
    wait_for(app, lambda s: s.get("away"))
    page.reload()
    expect(page).to_have_title(re.compile(r"^Away · \d\d:\d\d · Draft the grant report"))
    expect(page.locator("#drift-guard")).to_contain_text("Away from the keyboard")
    ui.snap(page, f"{name}-away")
    back = datetime.now(UTC)
    aw.afk_ping(True, back)
    aw.afk_ping(False, back)
    wait_for(app, lambda s: s.get("away") is False and s.get("away_returned_secs"))
    expect(page.locator("#away-return")).to_contain_text("You were away 4 min")  # pushed


@pytest.mark.parametrize(("width", "height", "scheme"), VIEWS)
def test_the_return_question_fits_and_passes_axe(new_tabs, app, aw, ui, width, height, scheme):
    tabs = new_tabs(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    page, _ = tabs.open()
    away_then_back(app, aw, page, ui, f"away-{width}-{scheme}")
    ui.settled(page)
    ui.snap(page, f"away-return-{width}-{scheme}")
    assert ui.axe_problems(page) == []
    assert ui.sideways_scroll(page) == 0


def test_count_it_as_a_pause_by_keyboard_moves_the_deadline_and_the_focus(page, app, aw, ui):
    expect = ui.expect
    away_then_back(app, aw, page, ui, "away-keys")
    deadline = app.server.get("/state")["commitment"]["deadline"]
    credit = page.get_by_role("button", name="Count it as a pause")
    credit.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#active-message")).to_contain_text("Counted as a pause")
    expect(page.locator("#active-title")).to_be_focused()
    expect(page.locator("#away-return")).to_have_text(re.compile(r"^\s*$"))
    state = app.server.get("/state")
    assert state["paused_secs"] > 0 and state["commitment"]["deadline"] > deadline
