"""Fake window tools (xdotool, swaymsg, …) come from the one `fake_bin` (tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def fake_bin(fake_bin, monkeypatch):
    """The shared fake_bin, with a DISPLAY set: the X11 tools are tried only with one."""
    monkeypatch.setenv("DISPLAY", ":99")
    return fake_bin
