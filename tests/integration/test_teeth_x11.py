"""The teeth on a real X server: Xvfb with openbox (Debian's 3.6.1) managing two real xmessage
windows; a real `antidrift serve` samples them through its X11 probe, a scripted judge (a fake
claude) calls one off task, nobody answers the nudge, and after the grace and
ANTIDRIFT_ENFORCE_AFTER openbox has iconified that exact window (WM_STATE Iconic) while the
on-task one stays normal."""

from __future__ import annotations

import pytest

from tests.fakes import wait_until
from tests.support import x11
from tests.support.fake_judge import drift_server
from tests.support.procs import stop
from tests.support.require import need

ACTION = "Write the intro paragraph"


@pytest.fixture
def desktop():
    absent = x11.missing("openbox")
    need(not absent, f"needs {', '.join(absent)}: {x11.INSTALL}")
    server, display = x11.start_xvfb()
    running = [server]
    try:
        running.append(x11.start_openbox(display))
        yield display, running
    finally:
        for proc in reversed(running):
            stop(proc)


def state(display: str, window: str) -> str:
    """The ICCCM state the window manager gave the window (xprop's words: Normal, Iconic)."""
    out = x11.tool(display, "xprop", "-id", window, "WM_STATE")
    return next((line.split(":")[-1].strip() for line in out.splitlines() if "state:" in line), "")


def test_an_ignored_nudge_iconifies_that_window_through_openbox(desktop, tmp_path):
    display, running = desktop
    server, judge, notifier = drift_server(
        tmp_path,
        DISPLAY=display,
        ANTIDRIFT_WINDOW_SOURCE="x11",
        ANTIDRIFT_SAMPLE_INTERVAL="0.2",
        ANTIDRIFT_DRIFT_GRACE="1",
        ANTIDRIFT_ENFORCE="minimize",
        ANTIDRIFT_ENFORCE_AFTER="1",
    )
    server.env.pop("WAYLAND_DISPLAY", None)
    notes_proc, notes = x11.open_window(display, "intro.md — notes")
    running.append(notes_proc)
    wait_until(lambda: state(display, notes) == "Normal", 30, 0.05, "openbox mapped the notes")
    with server:
        server.post("/planning")
        status, _ = server.post(
            "/commitment",
            {"next_action": ACTION, "success_condition": "It is in the doc", "timebox_minutes": 30},
        )
        assert status == 200
        wait_until(
            lambda: server.get("/state")["drift"]["status"] == "on_task", 15, 0.05, "on task"
        )
        videos_proc, videos = x11.open_window(display, "Cat videos — YouTube")
        running.append(videos_proc)
        x11.tool(display, "xdotool", "windowactivate", "--sync", videos)
        wait_until(
            lambda: server.get("/state")["drift"]["status"] == "drifting", 15, 0.05, "drifting"
        )
        wait_until(lambda: state(display, videos) == "Iconic", 20, 0.1, "the window iconified")
        assert state(display, notes) == "Normal", "the on-task window is untouched"
        told = wait_until(
            lambda: [c for c in notifier.calls() if any("Put away" in a for a in c)],
            10,
            0.05,
            "the notification saying what was done",
        )
        assert any("minimized" in a for a in told[0])
        server.post("/finish")
        server.post("/end", {"outcome": "met"})
