"""Hyprland: `hyprctl activewindow -j`.

Format from Hyprland's source (src/debug/HyprCtl.cpp, getWindowData and activeWindowRequest,
the 0.4x series; tests/fixtures/evidence/hyprctl-*): one JSON object with `class`, `title`,
`initialClass`, `initialTitle`, `pid`, `xwayland`, …; `{}` when no window has focus. hyprctl
prints its own errors on stdout ("HYPRLAND_INSTANCE_SIGNATURE not set! (is hyprland
running?)") with a non-zero exit status.
"""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.evidence.probe import (
    Desktop,
    Fit,
    ProbeError,
    Window,
    desktop_names,
    load_json,
    run_tool,
    text_field,
)


def parse(text: str) -> Window | None:
    """hyprctl's JSON window → (class, title); None for `{}`."""
    # Not JSON: hyprctl answered something else (never echoed: it might hold a title).
    window = load_json(text, "hyprctl activewindow -j printed no JSON (is Hyprland running?)")
    if not isinstance(window, dict):
        raise ProbeError("hyprctl activewindow -j printed no window object")
    app = text_field(window.get("class")) or text_field(window.get("initialClass"))
    title = text_field(window.get("title")) or text_field(window.get("initialTitle"))
    return (app, title) if app or title else None


class HyprlandProbe:
    """Asks Hyprland over its socket (HYPRLAND_INSTANCE_SIGNATURE) through hyprctl."""

    name = "hyprland"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def active_window(self) -> Window | None:
        return parse(run_tool(["hyprctl", "activewindow", "-j"], env=self._env).stdout)


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """Hyprland's instance signature, else its name in XDG_CURRENT_DESKTOP."""
    if env.get("HYPRLAND_INSTANCE_SIGNATURE"):
        return Fit("HYPRLAND_INSTANCE_SIGNATURE is set", sure=True)
    if "hyprland" in desktop_names(env):
        return Fit(f"XDG_CURRENT_DESKTOP={env.get('XDG_CURRENT_DESKTOP', '')}")
    return None


DESKTOP = Desktop(
    "hyprland", HyprlandProbe, fits, "hyprctl", "hyprctl comes with Hyprland: put it on PATH"
)
