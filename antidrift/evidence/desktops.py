"""The window sources of desktops, one line each: the one place that lists them.

Each desktop's module defines its probe (a probe.ToolProbe: a name, the tool's argv and a
parse of what it prints) and a `DESKTOP` entry (probe.Desktop: its name, how to build the
probe, when `auto` picks it, the tool it runs and how to install it, and — for the teeth —
how to put a window away there). Adding a desktop is that module and one line
below; `choose`, `doctor` and ANTIDRIFT_WINDOW_SOURCE's accepted words read this table.
The order is `auto`'s preference among the desktops that fit the session equally well.
ActivityWatch is not a desktop: it is the fallback when none fits (see choose.py)."""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.evidence import gnome, hyprland, kde, macos, sway, x11
from antidrift.evidence.idle import FREEDESKTOP, IdleSource
from antidrift.evidence.probe import Desktop, Fit

DESKTOPS: tuple[Desktop, ...] = (
    macos.DESKTOP,
    sway.DESKTOP,
    hyprland.DESKTOP,
    x11.DESKTOP,  # before KDE and GNOME: on X11 xdotool sees every window
    kde.DESKTOP,
    gnome.DESKTOP,
)

# The idle sources (time since the last input), each from its desktop's module (`IDLE`); the
# order is the choice's preference among those that fit. ActivityWatch's afk watcher is the
# fallback, as for the windows (choose.py).
IDLE_SOURCES: tuple[IdleSource, ...] = (
    macos.IDLE,
    sway.IDLE,
    gnome.IDLE,
    kde.IDLE,
    x11.IDLE,
    FREEDESKTOP,  # any session bus: KDE's interface, offered by other desktops too
)

ACTIVITYWATCH = "activitywatch"  # a source by name, but no desktop: the fallback


def modes() -> tuple[str, ...]:
    """ANTIDRIFT_WINDOW_SOURCE's accepted words."""
    return ("auto", *(d.name for d in DESKTOPS), ACTIVITYWATCH, "off")


MODES = modes()  # for the settings; the functions here read the table at each call


def desktop(name: str) -> Desktop | None:
    """The registry's entry for a desktop name, None for any other word."""
    return next((d for d in DESKTOPS if d.name == name), None)


def fitting(env: Mapping[str, str], platform: str) -> list[tuple[Desktop, Fit]]:
    """The desktops this session looks like: sure fits first, each group in table order."""
    found = [(d, fit) for d in DESKTOPS if (fit := d.fits(env, platform)) is not None]
    return [pair for pair in found if pair[1].sure] + [pair for pair in found if not pair[1].sure]
