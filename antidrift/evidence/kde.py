"""KDE Plasma: kdotool, an xdotool for KWin (Wayland and X11).

Format from kdotool 0.2's source (src/main.rs, src/templates.rs;
tests/fixtures/evidence/kdotool-active.txt): commands chain like xdotool's, and each query
prints one line, in order. `kdotool getactivewindow getwindowclassname getwindowname` prints
the window's `resourceClass`, then its `caption`. With no active window the generated KWin
script stops early and nothing is printed. Errors go to stderr (`ERROR: …`, `Error: …`).
`getwindowgeometry` (0.2) prints three lines, `Window <internalId>`, `  Position: x,y`,
`  Geometry: wxh`: chained last, its first line names the window exactly (KWin's internalId,
a UUID in braces) for the teeth.

Putting a window away (the teeth): `kdotool windowminimize <internalId>` (kdotool 0.2's
windowminimize: `w.minimized = true` on the window whose internalId matches; tested against
a fake kdotool only: no KWin runs here). It prints nothing; a failing KWin script is a line
on stderr. The window comes back from the task manager or Alt+Tab.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from antidrift.evidence.idle import IdleSource, ScreenSaverIdle
from antidrift.evidence.probe import (
    Desktop,
    Fit,
    Focused,
    ProbeError,
    ToolProbe,
    Window,
    WindowHandle,
    desktop_names,
    failure_detail,
    run_tool,
)

ARGV = ["kdotool", "getactivewindow", "getwindowclassname", "getwindowname", "getwindowgeometry"]
# KWin's internalId: the only form put_away passes on (it goes into a KWin script).
_INTERNAL_ID = re.compile(r"\{[0-9a-fA-F-]{8,64}\}")
_GEOMETRY = re.compile(r"Window (\S+)\n  Position: [^\n]*\n  Geometry: [^\n]*$")


def parse(text: str) -> Window | None:
    """Class on the first line, the caption after it, then the geometry naming the window
    (without it, the window is not identified exactly); None when nothing was printed."""
    text = text.rstrip("\n")
    exact = None
    geometry = _GEOMETRY.search(text)
    if geometry is not None:
        text = text[: geometry.start()].rstrip("\n")
        if _INTERNAL_ID.fullmatch(geometry.group(1)):
            exact = WindowHandle("kde", geometry.group(1))
    lines = text.split("\n")
    app, title = lines[0].strip(), " ".join(lines[1:]).strip()
    return Focused(app, title, exact) if app or title else None


class KdeProbe(ToolProbe):
    """Asks KWin through kdotool."""

    name = "kde"
    argv = ARGV

    def active_window(self) -> Window | None:
        result = self.run(self.argv)
        window = parse(result.stdout)
        if window is None and result.stderr.strip():
            # kdotool reports a failed KWin script on stderr and still exits 0.
            raise ProbeError(f"kdotool failed: {failure_detail(result)}")
        return window


def put_away(window: str, env: Mapping[str, str] | None = None) -> str:
    """Minimize the window with this internalId (and no other) through KWin."""
    if not _INTERNAL_ID.fullmatch(window):
        raise ProbeError("not a KWin window id")
    result = run_tool(["kdotool", "windowminimize", window], env=env)
    if result.stderr.strip():  # a failed KWin script: reported on stderr, exit status 0
        raise ProbeError(f"kdotool failed: {failure_detail(result)}")
    return "minimized (bring it back from the task manager or Alt+Tab)"


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
    put_away,
)
# Time since the last input: KWin offers the freedesktop ScreenSaver interface.
IDLE = IdleSource("kde", ScreenSaverIdle, fits, "gdbus")
