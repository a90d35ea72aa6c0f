"""Which window source to sample: ANTIDRIFT_WINDOW_SOURCE, or for `auto` the session's own.

`auto` reads the session's variables (SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE, WAYLAND_DISPLAY,
XDG_CURRENT_DESKTOP, DISPLAY) and the platform, picks the desktop's probe when its tool is
installed, and falls back to ActivityWatch when its server answers. Under Wayland xdotool
sees only XWayland windows, so an unknown Wayland compositor never gets the X11 probe.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from antidrift.evidence.activitywatch import DEFAULT_URL, ActivityWatchProbe
from antidrift.evidence.gnome import EXTENSION, GnomeProbe
from antidrift.evidence.hyprland import HyprlandProbe
from antidrift.evidence.kde import KdeProbe
from antidrift.evidence.macos import MacOSProbe
from antidrift.evidence.probe import ProbeError, WindowProbe
from antidrift.evidence.sway import SwayProbe
from antidrift.evidence.x11 import X11Probe

MODES = ("auto", "x11", "macos", "sway", "hyprland", "kde", "gnome", "activitywatch", "off")
DESKTOP_PROBES: dict[str, Callable[[Mapping[str, str] | None], WindowProbe]] = {
    "x11": X11Probe,
    "macos": MacOSProbe,
    "sway": SwayProbe,
    "hyprland": HyprlandProbe,
    "kde": KdeProbe,
    "gnome": GnomeProbe,
}
# The tool each desktop probe runs, and what to do when it is missing.
TOOLS = {
    "x11": "xdotool",
    "macos": "osascript",
    "sway": "swaymsg",
    "hyprland": "hyprctl",
    "kde": "kdotool",
    "gnome": "gdbus",
}
INSTALL = {
    "x11": "install xdotool and xprop (Debian/Ubuntu: xdotool x11-utils)",
    "macos": "osascript comes with macOS; allow it to control System Events",
    "sway": "swaymsg comes with sway: put it on PATH",
    "hyprland": "hyprctl comes with Hyprland: put it on PATH",
    "kde": "install kdotool (a package of your distribution, or `cargo install kdotool`)",
    "gnome": f"install and enable {EXTENSION}; gdbus comes with GLib (Debian: libglib2.0-bin)",
}
ACTIVITYWATCH = (
    "run ActivityWatch (aw-server with aw-watcher-window, or awatcher on Wayland):"
    " AntiDrift reads it at ANTIDRIFT_AW_URL"
)


@dataclass(frozen=True)
class Choice:
    """The probe to sample with (None: none), why, and what would make one work."""

    probe: WindowProbe | None
    reason: str
    advice: str = ""

    @property
    def name(self) -> str:
        return self.probe.name if self.probe is not None else "none"


def session_desktops(env: Mapping[str, str], platform: str) -> tuple[list[tuple[str, str]], str]:
    """The desktop probes that fit this session, best first, each with why; and a note on
    the session when none fits."""
    desktop = env.get("XDG_CURRENT_DESKTOP", "")
    names = {part.strip().lower() for part in desktop.split(":") if part.strip()}
    found: list[tuple[str, str]] = []
    if platform == "darwin":
        found.append(("macos", "macOS"))
    if env.get("SWAYSOCK"):
        found.append(("sway", "SWAYSOCK is set"))
    if env.get("HYPRLAND_INSTANCE_SIGNATURE"):
        found.append(("hyprland", "HYPRLAND_INSTANCE_SIGNATURE is set"))
    for token, name in (("sway", "sway"), ("hyprland", "hyprland")):
        if token in names and all(n != name for n, _ in found):
            found.append((name, f"XDG_CURRENT_DESKTOP={desktop}"))
    wayland = bool(env.get("WAYLAND_DISPLAY"))
    x11 = bool(env.get("DISPLAY"))
    if x11 and not wayland:
        found.append(("x11", "an X11 session (DISPLAY is set, WAYLAND_DISPLAY is not)"))
    if "kde" in names:
        found.append(("kde", f"KDE (XDG_CURRENT_DESKTOP={desktop})"))
    if any(n == "gnome" or n.startswith("gnome-") for n in names):
        found.append(("gnome", f"GNOME (XDG_CURRENT_DESKTOP={desktop})"))
    note = ""
    if not found and wayland:
        note = (
            f"a Wayland session of a compositor AntiDrift has no probe for"
            f" (XDG_CURRENT_DESKTOP={desktop or 'unset'}); xdotool would see only XWayland windows"
        )
    elif not found:
        note = "no desktop session found (no DISPLAY, WAYLAND_DISPLAY or SWAYSOCK)"
    return found, note


def new_probe(
    name: str, env: Mapping[str, str] | None = None, aw_url: str = DEFAULT_URL
) -> WindowProbe:
    """The probe of one source by its name."""
    if name == "activitywatch":
        return ActivityWatchProbe(aw_url)
    return DESKTOP_PROBES[name](env)


def choose(
    mode: str,
    *,
    env: Mapping[str, str] = os.environ,
    aw_url: str = DEFAULT_URL,
    which: Callable[[str], str | None] = shutil.which,
    platform: str = sys.platform,
    aw_answers: Callable[[str], bool] | None = None,
    try_first: bool = False,
) -> Choice:
    """The source for ANTIDRIFT_WINDOW_SOURCE's mode. `try_first` samples the session's probe
    once so that a desktop whose tool or extension fails can fall back to ActivityWatch."""
    mode = mode.strip().lower()
    if mode not in MODES:
        raise ValueError(f"unknown window source {mode!r}: use one of {', '.join(MODES)}")
    if mode == "off":
        return Choice(None, "ANTIDRIFT_WINDOW_SOURCE=off")
    if mode != "auto":
        return Choice(new_probe(mode, env, aw_url), f"ANTIDRIFT_WINDOW_SOURCE={mode}")
    answers = aw_answers or (lambda url: ActivityWatchProbe(url, timeout=1.0).answers())
    path = env.get("PATH")
    found, note = session_desktops(env, platform)
    missing: list[str] = []
    failed = ""
    for name, why in found:
        if not _which(which, TOOLS[name], path):
            missing.append(name)
            continue
        probe = DESKTOP_PROBES[name](env)
        if try_first:
            try:
                probe.active_window()
            except ProbeError as exc:
                if answers(aw_url):
                    return Choice(
                        ActivityWatchProbe(aw_url),
                        f"{why}, but the {name} probe failed ({exc}); ActivityWatch answers"
                        f" at {aw_url}",
                    )
                failed = f"; the {name} probe failed for now: {exc}"
        return Choice(probe, why + failed, f"{INSTALL[name]}; or {ACTIVITYWATCH}" if failed else "")
    reason = note or "the desktop's tool is missing: " + ", ".join(
        f"{TOOLS[n]} ({n})" for n in missing
    )
    if answers(aw_url):
        return Choice(ActivityWatchProbe(aw_url), f"{reason}; ActivityWatch answers at {aw_url}")
    advice = "; or ".join([*(INSTALL[n] for n in missing), ACTIVITYWATCH])
    return Choice(None, reason, advice + "; or post samples to /evidence/window")


def _which(which: Callable[[str], str | None], tool: str, path: str | None) -> bool:
    # The session's PATH decides (a server started with a PATH of its own looks there).
    if which is shutil.which:
        return shutil.which(tool, path=path) is not None
    return which(tool) is not None
