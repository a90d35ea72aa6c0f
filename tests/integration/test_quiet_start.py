"""A quiet start (issue 33): gunicorn has nothing to warn about, and the log names a setting
as the Settings page and settings.json do, never by its environment variable."""

from __future__ import annotations

import os
import re
import time

from tests.support.server import RunningServer

# What a desktop session or an earlier test might have set: a default start has none of it.
_SESSION = ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "HYPRLAND_INSTANCE_SIGNATURE",
            "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE")  # fmt: skip
GUNICORN_WARNING = re.compile(r"^\[[^]]+\] \[\d+\] \[WARNING\]", re.MULTILINE)


def _start_log(tmp_path, until: str, **settings: str) -> str:
    """The whole log of a real server started and stopped with the default environment (no
    ANTIDRIFT_* variable, no desktop session, no AI CLI on PATH), plus `settings`; stopped
    once the log has `until` (the window source is chosen on a thread of its own)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    server = RunningServer(tmp_path / "data")
    server.env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ANTIDRIFT_")},
        "PATH": str(empty),
        "HOME": str(tmp_path / "home"),
        "PYTHONUNBUFFERED": "1",
        **settings,
    }
    for name in _SESSION:
        server.env.pop(name, None)
    with server:
        server.get("/")  # the page rendered once, as at a user's first visit
        deadline = time.monotonic() + 30
        while until not in server.log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    return server.log_path.read_text()


def test_a_default_start_is_quiet_and_names_no_environment_variable(tmp_path):
    log = _start_log(tmp_path, until="no window source for this session")
    assert "Booting worker" in log and "stopped" in log  # the whole start and stop
    assert GUNICORN_WARNING.search(log) is None, log
    assert "ANTIDRIFT_" not in log, log
    # The two lines that used to name a variable say the setting instead.
    assert "the claude CLI was not found on PATH" in log
    assert "(or set the claude_bin setting)" in log
    assert "no window source for this session" in log and "the aw_url setting" in log


def test_settings_turned_off_are_named_as_the_settings_page_names_them(tmp_path):
    variables = {"ANTIDRIFT_DRIFT": "off", "ANTIDRIFT_BACKUPS": "0",
                 "ANTIDRIFT_WINDOW_SOURCE": "off", "ANTIDRIFT_NOTIFY": "off"}  # fmt: skip
    log = _start_log(tmp_path, until="built-in window sampler off", **variables)
    assert GUNICORN_WARNING.search(log) is None, log
    # No claude on PATH either: said, never warned (everything works by hand without it).
    assert "the claude CLI was not found on PATH" in log
    assert "WARNING" not in log, log
    assert "ANTIDRIFT_" not in log, log
    assert "drift guard off (the drift setting is off)" in log
    assert "daily backups off (the backups setting is 0)" in log
    assert "built-in window sampler off (the window_source setting is off)" in log
    assert "desktop notifications off (the notify setting is off)" in log


def test_the_log_does_not_say_the_guard_judges_with_a_cli_that_is_not_there(tmp_path):
    log = _start_log(tmp_path, until="built-in window sampler off", ANTIDRIFT_WINDOW_SOURCE="off")
    assert "drift guard waiting: claude is not installed; it judges once it is" in log, log
    assert "drift guard on" not in log, log
