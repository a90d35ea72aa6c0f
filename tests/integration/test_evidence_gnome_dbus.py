"""The GNOME probe through the real gdbus, on a private D-Bus session bus (a real
dbus-daemon), against a stand-in of GNOME Shell's "Focused Window D-Bus" extension
(tests/support/gnome_shell_standin.py) exported at the path of the extension's code or of
its README."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from antidrift.evidence import choose
from antidrift.evidence.gnome import OBJECTS, GnomeProbe
from antidrift.evidence.probe import ProbeError
from tests.support.procs import stop
from tests.support.require import need

STANDIN = Path(__file__).resolve().parents[1] / "support" / "gnome_shell_standin.py"
INSTALL = (
    "apt-get install --no-install-recommends dbus-daemon dbus-session-bus-common libglib2.0-bin"
    " python3-dbus python3-gi"
)


def system_python() -> str | None:
    """A python3 with python3-dbus and python3-gi (the distribution's, not our venv)."""
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if candidate and os.access(candidate, os.X_OK):
            probe = [candidate, "-c", "import dbus.mainloop.glib, gi.repository.GLib"]
            if subprocess.run(probe, capture_output=True, timeout=30).returncode == 0:
                return candidate
    return None


def read_line(proc: subprocess.Popen, timeout: float = 15.0) -> str:
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise RuntimeError(f"{proc.args[0]} printed nothing within {timeout:g} s")
    return proc.stdout.readline().decode().strip()


@pytest.fixture(scope="module")
def tools():
    python = system_python()
    return (shutil.which("dbus-daemon") and shutil.which("gdbus") and python), python


@pytest.fixture
def bus(tools):
    available, _ = tools
    need(available, f"dbus-daemon, gdbus or python3-dbus/python3-gi missing: {INSTALL}")
    folder = Path(tempfile.mkdtemp(prefix="antidrift-dbus-"))
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", f"--address=unix:path={folder}/bus",
         "--print-address=1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        address = read_line(daemon)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DBUS_SESSION_BUS_ADDRESS": address}
        yield env, folder
    finally:
        stop(daemon)
        shutil.rmtree(folder, ignore_errors=True)


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
