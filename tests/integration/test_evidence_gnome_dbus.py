"""The GNOME probe through the real gdbus, on a private D-Bus session bus (a real
dbus-daemon), against a stand-in of GNOME Shell's "Focused Window D-Bus" extension
(tests/support/gnome_shell_standin.py) exported at the path of the extension's code or of
its README."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from antidrift.evidence import choose
from antidrift.evidence.gnome import OBJECTS, GnomeProbe
from antidrift.evidence.probe import ProbeError
from tests.support.procs import stop
from tests.support.require import need
from tests.support.session_bus import INSTALL, private_bus, read_line, system_python

STANDIN = Path(__file__).resolve().parents[1] / "support" / "gnome_shell_standin.py"


@pytest.fixture(scope="module")
def tools():
    python = system_python()
    return (shutil.which("dbus-daemon") and shutil.which("gdbus") and python), python


@pytest.fixture
def bus(tools):
    available, _ = tools
    need(available, f"dbus-daemon, gdbus or python3-dbus/python3-gi missing: {INSTALL}")
    with private_bus() as (env, folder):
        yield env, folder


@pytest.fixture
def shell(bus, tools):
    """shell(path_index) starts the stand-in at OBJECTS[path_index]; set(window) switches."""
    env, folder = bus
    _, python = tools
    started: list[subprocess.Popen] = []
    window_file = folder / "window.json"

    def set_window(window: dict) -> None:
        window_file.write_text(json.dumps(window), encoding="utf-8")

    def start(index: int) -> None:
        set_window({})
        path, interface = OBJECTS[index]
        proc = subprocess.Popen(
            [python, str(STANDIN), path, interface, str(window_file)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started.append(proc)
        assert read_line(proc) == "ready"

    start.set_window = set_window
    start.env = env
    yield start
    for proc in started:
        stop(proc)


NOTES = {"wm_class": "org.gnome.TextEditor", "title": "Notes — Text Editor"}
TRICKY = {"wm_class": "org.gnome.Nautilus", "title": 'Bob\'s "files" — a\\b\ttab 🎯'}


def test_the_real_gdbus_reaches_the_extension_at_its_codes_path(shell):
    shell(0)
    probe = GnomeProbe(shell.env)
    assert probe.active_window() is None  # "{}": nothing has focus
    shell.set_window(NOTES)
    assert probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    shell.set_window(TRICKY)  # gdbus switches to double quotes and escapes
    assert probe.active_window() == ("org.gnome.Nautilus", TRICKY["title"])


def test_the_probe_falls_back_to_the_readmes_path(shell):
    shell(1)
    shell.set_window(NOTES)
    probe = GnomeProbe(shell.env)
    started = time.monotonic()
    assert probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    assert probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    assert time.monotonic() - started < 30


def test_without_gnome_shell_on_the_bus_the_probe_says_so(bus):
    env, _ = bus
    with pytest.raises(ProbeError, match="org.gnome.Shell was not provided"):
        GnomeProbe(env).active_window()


def test_auto_picks_gnome_from_the_sessions_variables(shell):
    shell(0)
    shell.set_window(NOTES)
    env = shell.env | {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0",
                       "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}  # fmt: skip
    choice = choose("auto", env=env, platform="linux", try_first=True,
                    aw_answers=lambda url: pytest.fail("asked ActivityWatch"))  # fmt: skip
    assert isinstance(choice.probe, GnomeProbe)
    assert "GNOME (XDG_CURRENT_DESKTOP=ubuntu:GNOME)" in choice.reason
    assert choice.probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
