"""Hyprland: `hyprctl activewindow -j`.

Format from Hyprland's source (src/debug/HyprCtl.cpp, getWindowData and activeWindowRequest,
the 0.4x series; tests/fixtures/evidence/hyprctl-*): one JSON object with `class`, `title`,
`initialClass`, `initialTitle`, `pid`, `xwayland`, …; `{}` when no window has focus. hyprctl
prints its own errors on stdout ("HYPRLAND_INSTANCE_SIGNATURE not set! (is hyprland
running?)") with a non-zero exit status.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from antidrift.evidence.probe import ProbeError, Window, run_tool


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def parse(text: str) -> Window | None:
    """hyprctl's JSON window → (class, title); None for `{}`."""
    try:
        window = json.loads(text)
    except (ValueError, RecursionError):
        # Not JSON: hyprctl answered something else (never echoed: it might hold a title).
        raise ProbeError("hyprctl activewindow -j printed no JSON (is Hyprland running?)") from None
    if not isinstance(window, dict):
        raise ProbeError("hyprctl activewindow -j printed no window object")
    app = _text(window.get("class")) or _text(window.get("initialClass"))
    title = _text(window.get("title")) or _text(window.get("initialTitle"))
    return (app, title) if app or title else None


class HyprlandProbe:
    """Asks Hyprland over its socket (HYPRLAND_INSTANCE_SIGNATURE) through hyprctl."""

    name = "hyprland"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def active_window(self) -> Window | None:
        return parse(run_tool(["hyprctl", "activewindow", "-j"], env=self._env).stdout)
