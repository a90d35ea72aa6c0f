"""X11Probe against a real X server (Xvfb), real xdotool/xprop and a real window."""

from __future__ import annotations

import subprocess
import time

import pytest

from antidrift.evidence.x11 import X11Probe
from tests.support import x11
from tests.support.procs import stop
from tests.support.require import need

TITLE = "AntiDrift test window"
WINDOW_PROGRAM = x11.WINDOW_PROGRAM
MISSING = x11.missing()


@pytest.fixture
def display(monkeypatch):
    """A fresh Xvfb on a free display number (tests/support/x11.py)."""
    need(not MISSING, f"needs {', '.join(MISSING)}: apt-get install xvfb xdotool x11-utils")
    server, name = x11.start_xvfb()
    monkeypatch.setenv("DISPLAY", name)
    try:
        yield name
    finally:
        stop(server)


def xdotool(*args: str) -> str:
    return subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, timeout=10, check=False
    ).stdout


@pytest.fixture
def open_window(display):
    """Open a window with a given title; returns its id."""
    procs = []

    def open_(title: str) -> str:
        if WINDOW_PROGRAM == "xmessage":
            argv = ["xmessage", "-name", "antidrift-test", "-title", title, "hello"]
        else:
            argv = ["xterm", "-name", "antidrift-test", "-title", title]
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(proc)
        deadline = time.monotonic() + 10
        while not (ids := xdotool("search", "--name", f"^{title}$").split()):
            assert proc.poll() is None, f"{WINDOW_PROGRAM} died: {proc.stderr.read()!r}"
            assert time.monotonic() < deadline, f"{WINDOW_PROGRAM} window {title!r} never appeared"
            time.sleep(0.05)
        return ids[0]

    yield open_
    for proc in procs:
        stop(proc)
        proc.stderr.close()


def test_reports_nothing_focused_on_an_empty_display(display):
    assert X11Probe().active_window() is None


def test_reports_the_focused_window_without_a_window_manager(open_window):
    window = open_window(TITLE)
    xdotool("windowfocus", "--sync", window)

    app, title = X11Probe().active_window()

    assert title == TITLE
    assert app == {"xmessage": "Xmessage", "xterm": "XTerm"}[WINDOW_PROGRAM]


def test_prefers_the_window_manager_active_window_over_the_input_focus(open_window):
    focused = open_window("Focused but not active")
    active = open_window(TITLE)
    xdotool("windowfocus", "--sync", focused)
    # Announce what an EWMH window manager would: it supports and names the active window.
    for prop, fmt, value in [
        ("_NET_SUPPORTED", "32a", "_NET_ACTIVE_WINDOW"),
        ("_NET_ACTIVE_WINDOW", "32c", active),
    ]:
        subprocess.run(["xprop", "-root", "-f", prop, fmt, "-set", prop, value], check=True)

    app, title = X11Probe().active_window()

    assert title == TITLE
    assert app
