"""The sway probe against a real headless sway 1.7 and real foot windows, and `auto` picking
sway from the session's variables."""

from __future__ import annotations

import time

import pytest

from antidrift.evidence import choose
from antidrift.evidence.sway import SwayProbe


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


def test_the_sway_probe_reports_the_focused_foot_window_and_follows_focus(sway_desktop):
    probe = SwayProbe(sway_desktop.session_env())
    sway_desktop.open_window("antidrift-notes", "Notes — draft")
    assert reported(probe, ("antidrift-notes", "Notes — draft")) == (
        "antidrift-notes",
        "Notes — draft",
    )
    sway_desktop.open_window("antidrift-mail", "Inbox (3)")
    assert reported(probe, ("antidrift-mail", "Inbox (3)")) == ("antidrift-mail", "Inbox (3)")
    sway_desktop.msg("[app_id=antidrift-notes]", "focus")
    assert reported(probe, ("antidrift-notes", "Notes — draft")) == (
        "antidrift-notes",
        "Notes — draft",
    )


def test_an_empty_workspace_has_no_window(sway_desktop):
    probe = SwayProbe(sway_desktop.session_env())
    sway_desktop.msg("workspace", "9")
    try:
        assert probe.active_window() is None
    finally:
        sway_desktop.msg("workspace", "1")


def test_auto_picks_sway_from_the_sessions_variables(sway_desktop):
    sway_desktop.open_window("antidrift-auto", "Picked by auto")
    # XWayland's DISPLAY beside it must not lead to xdotool; ActivityWatch is never asked.
    env = sway_desktop.session_env() | {"DISPLAY": ":0"}
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
