"""KDE Plasma: kdotool, an xdotool for KWin (Wayland and X11).

Format from kdotool 0.2's source (src/main.rs, src/templates.rs;
tests/fixtures/evidence/kdotool-active.txt): commands chain like xdotool's, and each query
prints one line, in order. `kdotool getactivewindow getwindowclassname getwindowname` prints
the window's `resourceClass`, then its `caption`. With no active window the generated KWin
script stops early and nothing is printed. Errors go to stderr (`ERROR: …`, `Error: …`).
"""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.evidence.probe import (
    Desktop,
    Fit,
    ProbeError,
    Window,
    desktop_names,
    failure_detail,
    run_tool,
)

ARGV = ["kdotool", "getactivewindow", "getwindowclassname", "getwindowname"]


def parse(text: str) -> Window | None:
    """Class on the first line, the caption after it; None when nothing was printed."""
    lines = text.rstrip("\n").split("\n")
    app, title = lines[0].strip(), " ".join(lines[1:]).strip()
    return (app, title) if app or title else None


class KdeProbe:
    """Asks KWin through kdotool."""

    name = "kde"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def active_window(self) -> Window | None:
        result = run_tool(ARGV, env=self._env)
        window = parse(result.stdout)
        if window is None and result.stderr.strip():
            # kdotool reports a failed KWin script on stderr and still exits 0.
            raise ProbeError(f"kdotool failed: {failure_detail(result)}")
        return window


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """KDE by name (Wayland or X11; on X11 the X11 probe comes first)."""
    if "kde" in desktop_names(env):
        return Fit(f"KDE (XDG_CURRENT_DESKTOP={env.get('XDG_CURRENT_DESKTOP', '')})")
    return None


DESKTOP = Desktop(
    "kde",
    KdeProbe,
    fits,
    "kdotool",
    "install kdotool (a package of your distribution, or `cargo install kdotool`)",
)
