"""Fake window tools (xdotool, swaymsg, …) come from the one `fake_bin` (tests/conftest.py)."""

from __future__ import annotations

import pytest

from antidrift.evidence import probe

SHIPPED_TOOL_TIMEOUT = probe.TOOL_TIMEOUT


@pytest.fixture
def fake_bin(fake_bin, monkeypatch):
    """The shared fake_bin, with a DISPLAY set: the X11 tools are tried only with one."""
    monkeypatch.setenv("DISPLAY", ":99")
    return fake_bin


@pytest.fixture(autouse=True)
def _tools_may_start_slowly(monkeypatch):
    """A fake tool is a Python script: on a busy machine its start alone took longer than the
    2 s a probe gives a tool, and a fake that answers became "timed out" (hyprctl, at load
    15). Here a tool has 30 s; the tests of the bound itself ask for `shipped_tool_timeout`."""
    monkeypatch.setattr(probe, "TOOL_TIMEOUT", 30.0)


@pytest.fixture
def shipped_tool_timeout(monkeypatch):
    """The probe's own bound on a tool run, for a test of a tool that hangs."""
    monkeypatch.setattr(probe, "TOOL_TIMEOUT", SHIPPED_TOOL_TIMEOUT)
    return SHIPPED_TOOL_TIMEOUT
