"""The Reflect button in a real Chromium: a click in review, the coach's sentences pushed into
the page (no script of our own), shown as text however the answer is dressed up."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator

import pytest

from tests.support.browser import App
from tests.support.fake_cli import FakeCLI
from tests.support.server import RunningServer

pytestmark = pytest.mark.browser

ANSWER = "<b>Mostly the editor</b>, and you finished early. Plan 20 minutes next time. Extra."


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """A server whose coach is a command that answers one reflection in prose."""
    tmp = tmp_path_factory.mktemp("reflect")
    command = shlex.join([sys.executable, "-c", f"print({ANSWER!r})"])
    env = {"ANTIDRIFT_AI_BACKEND": "command", "ANTIDRIFT_AI_COMMAND": command}
    server = RunningServer(tmp / "data", env={**env, "ANTIDRIFT_DRIFT": "off"})
    server.start()
    try:
        yield App(server, FakeCLI(tmp / "bin"), tmp)
    finally:
        server.stop()


def test_reflect_shows_two_sentences_as_text(tabs, app, ui):
    app.server.post("/planning")
    app.server.post(
        "/commitment",
        {"next_action": "Draft the intro", "success_condition": "In the doc", "timebox_minutes": 5},
    )
    app.server.post("/evidence/window", {"app": "code", "title": "intro.md"})
    app.server.post("/finish")
    page, watch = tabs.open("/")
    ui.expect(ui.view(page, "review")).to_be_visible()
    page.get_by_role("button", name="Reflect").click()
    ready = page.locator('#reflection[data-status="ready"]')
    ui.expect(ready).to_contain_text("Plan 20 minutes next time.")
    text = ready.locator(".reflection-text").inner_text()
    assert "<b>Mostly the editor</b>" in text and "Extra" not in text  # text, two sentences
    assert page.locator("#reflection b").count() == 0
    assert watch.csp_violations() == [] and watch.errors == []
