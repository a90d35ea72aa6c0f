"""The main views speak in words, in Chromium: the visible text of the locked, planning,
active and review views never names an ANTIDRIFT_ variable, each links to Settings, and
with no AI installed planning says once that planning by hand works."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import App
from tests.support.fake_cli import path_with
from tests.support.server import RunningServer

pytestmark = pytest.mark.browser


def visible_text(page) -> str:
    return page.locator("body").inner_text()


def walk(page, ui, app) -> dict[str, str]:
    """locked -> planning -> active -> review by clicking; each view's visible text."""
    seen = {}
    page.goto(app.base + "/")
    ui.expect(ui.view(page, "locked")).to_be_visible()
    seen["locked"] = visible_text(page)
    ui.plan(page)
    seen["planning"] = visible_text(page)
    page.get_by_label("Next action", exact=True).fill("Write the intro")
    page.get_by_label("Done when", exact=True).fill("Two pages")
    page.get_by_label("Minutes", exact=True).fill("20")
    page.get_by_role("button", name="Start").click()
    ui.expect(ui.view(page, "active")).to_be_visible()
    seen["active"] = visible_text(page)
    page.get_by_role("button", name="Finish").click()
    ui.expect(ui.view(page, "review")).to_be_visible()
    seen["review"] = visible_text(page)
    for state in seen:
        assert page.locator('a[href="/settings"]').count() >= 1, state
    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    ui.expect(ui.view(page, "locked")).to_be_visible()
    return seen


def test_with_a_coach_and_judge_the_views_name_no_variable(page, app, ui):
    seen = walk(page, ui, app)
    for state, text in seen.items():
        assert "ANTIDRIFT_" not in text, (state, text)
    assert "Drift guard on — claude checks each new window" in seen["active"]
    assert "Coach: claude" in seen["planning"]
    assert "plan by hand" not in seen["planning"]


@pytest.fixture(scope="module")
def bare(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """A server whose PATH holds no AI CLI at all."""
    tmp = tmp_path_factory.mktemp("bare")
    (tmp / "bin").mkdir()
    server = RunningServer(
        tmp / "data", env={"PATH": path_with(tmp / "bin"), "ANTIDRIFT_WINDOW_SOURCE": "off"}
    )
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)
    server.start()
    try:
        yield App(server, None, tmp)
    finally:
        server.stop()


def test_with_no_ai_installed_planning_by_hand_is_said_once(page, bare, ui):
    seen = walk(page, ui, bare)
    for state, text in seen.items():
        assert "ANTIDRIFT_" not in text, (state, text)
    assert seen["planning"].count("plan by hand") == 1, seen["planning"]
    assert "Drift guard on" not in seen["active"]
    ui.plan(page)
    page.get_by_label("Rough intent", exact=False).fill("write something")
    page.get_by_role("button", name="Sharpen").click()
    ui.expect(ui.coach(page, "error")).to_be_visible()
    text = visible_text(page)
    assert "ANTIDRIFT_" not in text and text.count("plan by hand") == 1, text
    error = page.locator("p.coach-error").inner_text()
    assert error[:1].isupper(), error
