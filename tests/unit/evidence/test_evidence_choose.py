"""Which window source `auto` picks from the session's variables, and the forced modes."""

from __future__ import annotations

import pytest

from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.evidence.choose import MODES, choose
from antidrift.evidence.gnome import GnomeProbe
from antidrift.evidence.hyprland import HyprlandProbe
from antidrift.evidence.kde import KdeProbe
from antidrift.evidence.macos import MacOSProbe
from antidrift.evidence.sway import SwayProbe
from antidrift.evidence.x11 import X11Probe

AW = "http://127.0.0.1:5600"


def tools(*present: str):
    """A fake shutil.which that finds exactly the given tools."""
    return lambda name: f"/usr/bin/{name}" if name in present else None


class Answers:
    """A fake 'does aw-server answer?' that counts the questions."""

    def __init__(self, answer: bool) -> None:
        self.answer, self.asked = answer, []

    def __call__(self, url: str) -> bool:
        self.asked.append(url)
        return self.answer


def pick(env, which, platform="linux", *, aw=False, mode="auto", **kw):
    return choose(mode, env=env, which=which, platform=platform, aw_answers=Answers(aw), **kw)


X = {"DISPLAY": ":0"}
SWAY = {"WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.1000.42.sock"}
HYPR = {"WAYLAND_DISPLAY": "wayland-1", "HYPRLAND_INSTANCE_SIGNATURE": "abc_1700000000_x"}
KDE_W = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "KDE"}
GNOME_W = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}
RIVER = {"WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":1", "XDG_CURRENT_DESKTOP": "river"}
EVERY_TOOL = tools("xdotool", "osascript", "swaymsg", "hyprctl", "kdotool", "gdbus")


@pytest.mark.parametrize(
    ("env", "which", "platform", "expected", "why"),
    [
        ({}, tools("osascript"), "darwin", MacOSProbe, "macOS"),
        (X, tools("osascript", "xdotool"), "darwin", MacOSProbe, "macOS"),
        (X, tools("xdotool"), "darwin", X11Probe, "X11"),  # XQuartz without osascript
        (X, tools("xdotool"), "linux", X11Probe, "DISPLAY is set"),
        (SWAY, EVERY_TOOL, "linux", SwayProbe, "SWAYSOCK is set"),
        (SWAY | {"DISPLAY": ":0"}, EVERY_TOOL, "linux", SwayProbe, "SWAYSOCK"),
        (HYPR, EVERY_TOOL, "linux", HyprlandProbe, "HYPRLAND_INSTANCE_SIGNATURE"),
        (KDE_W, EVERY_TOOL, "linux", KdeProbe, "XDG_CURRENT_DESKTOP=KDE"),
        (GNOME_W, EVERY_TOOL, "linux", GnomeProbe, "XDG_CURRENT_DESKTOP=ubuntu:GNOME"),
        (
            {"WAYLAND_DISPLAY": "wayland-1", "XDG_CURRENT_DESKTOP": "sway"},
            EVERY_TOOL,
            "linux",
            SwayProbe,
            "XDG_CURRENT_DESKTOP=sway",
        ),
        # KDE or GNOME on X11: xdotool sees every window there, and comes first.
        (X | {"XDG_CURRENT_DESKTOP": "GNOME"}, EVERY_TOOL, "linux", X11Probe, "X11"),
        (X | {"XDG_CURRENT_DESKTOP": "GNOME"}, tools("gdbus"), "linux", GnomeProbe, "GNOME"),
    ],
)
def test_auto_picks_the_sessions_probe(env, which, platform, expected, why):
    choice = pick(env, which, platform)
    assert type(choice.probe) is expected
    assert why in choice.reason
    assert choice.name == choice.probe.name


@pytest.mark.parametrize("env", [KDE_W, GNOME_W, RIVER, SWAY])
def test_auto_never_picks_xdotool_in_a_wayland_session(env):
    """xdotool under Wayland sees only XWayland windows: wrong evidence, not evidence."""
    choice = pick(env, tools("xdotool"))
    assert not isinstance(choice.probe, X11Probe)
    assert choice.probe is None


def test_auto_falls_back_to_activitywatch_when_the_desktops_tool_is_missing():
    answers = Answers(True)
    choice = choose("auto", env=GNOME_W, which=tools("xdotool"), platform="linux",
                    aw_answers=answers, aw_url="http://localhost:5666")  # fmt: skip
    assert isinstance(choice.probe, ActivityWatchProbe)
    assert choice.probe.url == "http://localhost:5666"
    assert "gdbus (gnome)" in choice.reason and "ActivityWatch answers" in choice.reason
    assert answers.asked == ["http://localhost:5666"]


def test_auto_falls_back_to_activitywatch_for_a_compositor_without_a_probe():
    choice = pick(RIVER, EVERY_TOOL, aw=True)
    assert isinstance(choice.probe, ActivityWatchProbe)
    assert "XDG_CURRENT_DESKTOP=river" in choice.reason


def test_auto_asks_activitywatch_nothing_when_the_desktop_probe_fits():
    answers = Answers(True)
    choose("auto", env=SWAY, which=EVERY_TOOL, platform="linux", aw_answers=answers)
    assert answers.asked == []


@pytest.mark.parametrize(
    ("env", "which", "advice"),
    [
        (GNOME_W, tools(), 'install and enable the "Focused Window D-Bus"'),
        (KDE_W, tools(), "install kdotool"),
        (X, tools(), "install xdotool and xprop"),
        (HYPR, tools(), "hyprctl comes with Hyprland"),
        ({}, tools(), "run ActivityWatch"),
        (RIVER, EVERY_TOOL, "run ActivityWatch"),
    ],
)
def test_with_no_source_the_choice_says_what_to_install(env, which, advice):
    choice = pick(env, which)
    assert choice.probe is None and choice.name == "none"
    assert advice in choice.advice
    assert "ActivityWatch" in choice.advice and "/evidence/window" in choice.advice


def test_try_first_falls_back_to_activitywatch_when_the_desktop_probe_fails(tmp_path):
    # swaymsg "found" by which, but not runnable on the session's PATH: the probe fails.
    env = SWAY | {"PATH": str(tmp_path)}
    choice = pick(env, EVERY_TOOL, aw=True, try_first=True)
    assert isinstance(choice.probe, ActivityWatchProbe)
    assert "the sway probe failed (swaymsg is not installed)" in choice.reason


def test_try_first_keeps_the_desktop_probe_when_activitywatch_does_not_answer(tmp_path):
    env = SWAY | {"PATH": str(tmp_path)}
    choice = pick(env, EVERY_TOOL, aw=False, try_first=True)
    assert isinstance(choice.probe, SwayProbe)
    assert "failed for now: swaymsg is not installed" in choice.reason


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("x11", X11Probe),
        ("macos", MacOSProbe),
        ("sway", SwayProbe),
        ("hyprland", HyprlandProbe),
        ("kde", KdeProbe),
        ("gnome", GnomeProbe),
        ("activitywatch", ActivityWatchProbe),
        (" Sway ", SwayProbe),
    ],
)
def test_a_forced_mode_gets_its_probe_whatever_the_session(mode, expected):
    choice = pick({}, tools(), "linux", mode=mode)
    assert type(choice.probe) is expected
    assert "ANTIDRIFT_WINDOW_SOURCE=" in choice.reason


@pytest.mark.parametrize("mode", ["off", "OFF"])
def test_off_samples_nothing(mode):
    assert pick(X, EVERY_TOOL, mode=mode).probe is None


@pytest.mark.parametrize("mode", ["wayland", "", "x12", "none"])
def test_an_unknown_mode_is_refused_listing_the_valid_ones(mode):
    with pytest.raises(ValueError) as raised:
        pick(X, EVERY_TOOL, mode=mode)
    for valid in MODES:
        assert valid in str(raised.value)


def test_the_session_path_decides_whether_a_tool_is_installed(tmp_path):
    """A server started with a PATH of its own finds the tools on that PATH."""
    (tmp_path / "swaymsg").write_text("#!/bin/sh\n")
    (tmp_path / "swaymsg").chmod(0o755)
    found = choose("auto", env=SWAY | {"PATH": str(tmp_path)}, aw_answers=Answers(False))
    assert isinstance(found.probe, SwayProbe)
    missing = choose("auto", env=SWAY | {"PATH": str(tmp_path / "none")}, aw_answers=Answers(False))
    assert missing.probe is None
