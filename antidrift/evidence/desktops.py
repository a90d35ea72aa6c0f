"""The window sources of desktops, one line each: the one place that lists them.

Each desktop's module defines its probe (a probe.ToolProbe: a name, the tool's argv and a
parse of what it prints) and a `DESKTOP` entry (probe.Desktop: its name, how to build the
probe, when `auto` picks it, the tool it runs and how to install it, and — for the teeth —
how to put a window away there). Adding a desktop is that module, its line below and its
word in core/choices.py's DESKTOPS, whose order is `auto`'s preference among the desktops
that fit the session equally well (the settings read the words there, without loading this
wing); `choose` and `doctor` read this table. ActivityWatch is not a desktop: it is the
fallback when none fits (see choose.py)."""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.core.choices import ACTIVITYWATCH
from antidrift.core.choices import DESKTOPS as WORDS
from antidrift.evidence import gnome, hyprland, kde, macos, sway, x11
from antidrift.evidence.idle import FREEDESKTOP, IdleSource
from antidrift.evidence.probe import Desktop, Fit

_ENTRIES = (gnome.DESKTOP, hyprland.DESKTOP, kde.DESKTOP, macos.DESKTOP, sway.DESKTOP, x11.DESKTOP)
_BY_WORD = {entry.name: entry for entry in _ENTRIES}
DESKTOPS: tuple[Desktop, ...] = tuple(_BY_WORD[word] for word in WORDS)  # in auto's order

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


def modes() -> tuple[str, ...]:
    """ANTIDRIFT_WINDOW_SOURCE's accepted words."""
    return ("auto", *(d.name for d in DESKTOPS), ACTIVITYWATCH, "off")


MODES = modes()  # core/choices.py's WINDOW_SOURCES; the functions here read the table each call


def desktop(name: str) -> Desktop | None:
    """The registry's entry for a desktop name, None for any other word."""
    return next((d for d in DESKTOPS if d.name == name), None)


def fitting(env: Mapping[str, str], platform: str) -> list[tuple[Desktop, Fit]]:
    """The desktops this session looks like: sure fits first, each group in table order."""
    found = [(d, fit) for d in DESKTOPS if (fit := d.fits(env, platform)) is not None]
    return [pair for pair in found if pair[1].sure] + [pair for pair in found if not pair[1].sure]
