"""The sway probe against a real headless sway 1.7 and real foot windows, and `auto` picking
sway from the session's variables."""

from __future__ import annotations

import time

import pytest

from antidrift.evidence import choose
from antidrift.evidence.sway import SwayProbe
from tests.support import sway
from tests.support.require import need


@pytest.fixture(scope="module")
def session():
    problem = sway.missing()
    if problem:
        yield None
        return
    running = sway.HeadlessSway()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def desktop(session):
    need(session, sway.missing() or "headless sway could not start")
    return session


def reported(probe, expected, timeout: float = 15.0):
    """Poll the probe until it reports `expected` (a new window takes a moment to map)."""
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = probe.active_window()
        if seen == expected:
            return seen
        time.sleep(0.1)
    return seen


def test_the_sway_probe_reports_the_focused_foot_window_and_follows_focus(desktop):
    probe = SwayProbe(desktop.session_env())
    desktop.open_window("antidrift-notes", "Notes — draft")
    assert reported(probe, ("antidrift-notes", "Notes — draft")) == (
        "antidrift-notes",
        "Notes — draft",
    )
    desktop.open_window("antidrift-mail", "Inbox (3)")
    assert reported(probe, ("antidrift-mail", "Inbox (3)")) == ("antidrift-mail", "Inbox (3)")
    desktop.msg("[app_id=antidrift-notes]", "focus")
    assert reported(probe, ("antidrift-notes", "Notes — draft")) == (
        "antidrift-notes",
        "Notes — draft",
    )


def test_an_empty_workspace_has_no_window(desktop):
    probe = SwayProbe(desktop.session_env())
    desktop.msg("workspace", "9")
    try:
        assert probe.active_window() is None
    finally:
        desktop.msg("workspace", "1")


def test_auto_picks_sway_from_the_sessions_variables(desktop):
    desktop.open_window("antidrift-auto", "Picked by auto")
    # XWayland's DISPLAY beside it must not lead to xdotool; ActivityWatch is never asked.
    env = desktop.session_env() | {"DISPLAY": ":0"}
    choice = choose(
        "auto",
        env=env,
        platform="linux",
        try_first=True,
        aw_answers=lambda url: pytest.fail("asked ActivityWatch although sway answers"),
    )
    assert isinstance(choice.probe, SwayProbe)
    assert choice.reason == "SWAYSOCK is set" and choice.advice == ""
    assert reported(choice.probe, ("antidrift-auto", "Picked by auto")) == (
        "antidrift-auto",
        "Picked by auto",
    )
