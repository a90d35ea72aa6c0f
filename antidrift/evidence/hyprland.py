"""Hyprland: `hyprctl activewindow -j`.

Format from Hyprland's source (src/debug/HyprCtl.cpp, getWindowData and activeWindowRequest,
the 0.4x series; tests/fixtures/evidence/hyprctl-*): one JSON object with `class`, `title`,
`initialClass`, `initialTitle`, `pid`, `xwayland`, …; `{}` when no window has focus. hyprctl
prints its own errors on stdout ("HYPRLAND_INSTANCE_SIGNATURE not set! (is hyprland
running?)") with a non-zero exit status. `address` (e.g. `0x5a3c1e0a8f10`) names the window exactly.

Putting a window away (the teeth): `hyprctl dispatch movetoworkspacesilent
special:antidrift,address:0x…` — the dispatcher's argument is `<workspace>,<window>`, a window
named by `address:` (Hyprland wiki, "Dispatchers" and "Workspaces › special"; 0.4x series;
tested against a fake hyprctl only: no Hyprland runs here). hyprctl prints `ok` when the
dispatch worked and its error text otherwise. `hyprctl dispatch togglespecialworkspace
antidrift` shows the window again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from antidrift.evidence.probe import (
    Desktop,
    Fit,
    Focused,
    ProbeError,
    ToolProbe,
    Window,
    WindowHandle,
    load_json,
    run_tool,
    socket_or_name,
    text_field,
)

_ADDRESS = re.compile(r"0x[0-9a-f]+")
SPECIAL = "special:antidrift"  # the special workspace the teeth put windows on


def parse(text: str) -> Window | None:
    """hyprctl's JSON window → (class, title); None for `{}`."""
    # Not JSON: hyprctl answered something else (never echoed: it might hold a title).
    window = load_json(text, "hyprctl activewindow -j printed no JSON (is Hyprland running?)")
    if not isinstance(window, dict):
        raise ProbeError("hyprctl activewindow -j printed no window object")
    app = text_field(window.get("class")) or text_field(window.get("initialClass"))
    title = text_field(window.get("title")) or text_field(window.get("initialTitle"))
    address = text_field(window.get("address"))
    exact = WindowHandle("hyprland", address) if _ADDRESS.fullmatch(address) else None
    return Focused(app, title, exact) if app or title else None


class HyprlandProbe(ToolProbe):
    """Asks Hyprland over its socket (HYPRLAND_INSTANCE_SIGNATURE) through hyprctl."""

    name = "hyprland"
    argv = ("hyprctl", "activewindow", "-j")
    parse = staticmethod(parse)


def put_away(window: str, env: Mapping[str, str] | None = None) -> str:
    """Move the window at this address (and no other) to a special workspace, silently."""
    if not _ADDRESS.fullmatch(window):
        raise ProbeError("not a Hyprland window address")
    argv = ["hyprctl", "dispatch", "movetoworkspacesilent", f"{SPECIAL},address:{window}"]
    said = run_tool(argv, env=env).stdout.strip()
    if said != "ok":
        raise ProbeError(
            f"hyprctl dispatch failed: {said.splitlines()[0][:200] if said else 'no answer'}"
        )
    return (
        "moved to the special workspace antidrift"
        " (hyprctl dispatch togglespecialworkspace antidrift shows it)"
    )


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """Hyprland's instance signature, else its name in XDG_CURRENT_DESKTOP."""
    return socket_or_name(env, "HYPRLAND_INSTANCE_SIGNATURE", "hyprland")


DESKTOP = Desktop(
    "hyprland",
    HyprlandProbe,
    fits,
    "hyprctl",
    "hyprctl comes with Hyprland: put it on PATH",
    put_away,
)
