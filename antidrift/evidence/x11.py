"""X11: the focused window through xdotool (EWMH active window, else input focus) and xprop.

The window id xdotool names is the exact window for the teeth: `xdotool windowminimize <id>`
(xdotool 3.20160805, xdotool(1) "windowminimize [options] [window]") sends the ICCCM
WM_CHANGE_STATE IconicState client message, so the window manager iconifies that window
(checked here under Xvfb with openbox 3.6.1: WM_STATE becomes Iconic). It exits 0 silently;
a window id that does not exist makes it print `X Error of failed request: BadWindow …` and
exit 1. The window comes back from the taskbar, the window list or Alt+Tab.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from antidrift.evidence.idle import IdleSource
from antidrift.evidence.probe import (
    Desktop,
    Fit,
    Focused,
    ProbeError,
    ToolFailed,
    ToolProbe,
    Window,
    WindowHandle,
    run_tool,
)

NO_WINDOW_IDS = (0, 1)  # X11 None and PointerRoot: nothing has focus
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_TITLE_APP = re.compile(r".*\s[-–—]\s(.+)$")  # "Inbox — Mozilla Firefox" -> "Mozilla Firefox"


def _window_id(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ProbeError(f"{what} printed no window id") from None


class X11Probe(ToolProbe):
    """Asks the X server via xdotool and xprop."""

    name = "x11"

    def active_window(self) -> Window | None:
        env = self._env if self._env is not None else os.environ
        if not env.get("DISPLAY"):
            raise ProbeError("DISPLAY is not set: no X11 session to sample")
        window, managed = self._focused_window()
        if window is None:
            return None
        title = self.out(["xdotool", "getwindowname", str(window)]).rstrip("\n")
        try:
            classes = _QUOTED.findall(self.out(["xprop", "-id", str(window), "WM_CLASS"]))
        except ProbeError:
            classes = []  # a missing xprop or WM_CLASS is not worth losing the sample for
        if classes:
            app = classes[-1]
        else:
            match = _TITLE_APP.match(title)
            app = match.group(1).strip() if match else title
        # Only a window manager's active window is the teeth's: without one, nothing iconifies.
        exact = WindowHandle("x11", str(window)) if managed else None
        return Focused(app, title, exact) if app or title else None

    def _focused_window(self) -> tuple[int | None, bool]:
        """The focused window's id, and whether an EWMH window manager named it."""
        try:
            window = _window_id(self.out(["xdotool", "getactivewindow"]), "xdotool")
        except ToolFailed as ewmh_error:
            # No EWMH window manager, or it reports no active window: ask for the input focus.
            try:
                raw = _window_id(self.out(["xdotool", "getwindowfocus", "-f"]), "xdotool")
            except ProbeError:
                raise ewmh_error from None
            if raw in NO_WINDOW_IDS:
                return None, False
            try:  # without -f xdotool walks up to the top-level window carrying WM_CLASS
                window = _window_id(self.out(["xdotool", "getwindowfocus"]), "xdotool")
            except ProbeError:
                return None, False  # focus is on the root or a window no application owns
            return (None if window in NO_WINDOW_IDS else window), False
        return (None if window in NO_WINDOW_IDS else window), True


class X11Idle(ToolProbe):
    """The X server's idle time through xprintidle (XScreenSaverQueryInfo, in ms): a tool
    on the subprocess seam rather than libXss in-process, since Xlib ends the whole process
    when its connection breaks, and a tool run is bounded in time."""

    name = "x11"
    argv = ("xprintidle",)

    def idle_secs(self) -> float:
        text = self.out(self.argv).strip()
        if not text.isdigit():
            raise ProbeError("xprintidle printed no idle time")
        return int(text) / 1000


def put_away(window: str, env: Mapping[str, str] | None = None) -> str:
    """Ask the window manager to iconify the X11 window with this id (and no other)."""
    if not window.isdigit() or int(window) in NO_WINDOW_IDS:
        raise ProbeError("not an X11 window id")
    run_tool(["xdotool", "windowminimize", window], env=env)
    return "minimized (bring it back from the taskbar, the window list or Alt+Tab)"


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """An X11 session; never under Wayland, where xdotool sees only XWayland windows."""
    if env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return Fit("an X11 session (DISPLAY is set, WAYLAND_DISPLAY is not)")
    return None


DESKTOP = Desktop(
    "x11",
    X11Probe,
    fits,
    "xdotool",
    "install xdotool and xprop (Debian/Ubuntu: xdotool x11-utils)",
    put_away,
)
IDLE = IdleSource("x11", X11Idle, fits, "xprintidle")  # time since the last input
