"""macOS: the frontmost app and its front window through osascript and System Events.

The script also prints the frontmost process's unix id after the app's name (a tab between):
with the window's name it identifies the window for the teeth. Without a title the window is
not identified exactly, and the teeth leave it alone.

Putting a window away (the teeth): osascript runs a `run` handler with the pid as its argument
(`osascript -e … pid`, osascript(1): "Any arguments following the script will be passed as a
list of strings to the direct parameter of the run handler") and the window's name on its
standard input (read as UTF-8): a title is private, and a command line is not (`ps` shows it
to every user). System Events sets `AXMinimized` of that process's window of that name (UI
scripting; needs the same Automation permission as the probe). Tested against a fake osascript
only: no macOS here. The window comes back from the Dock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

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
from antidrift.process import Result

_HID_IDLE = re.compile(r'"HIDIdleTime" = (\d+)')
_FRONT_WINDOW_SCRIPT = (
    'set appName to ""',
    'set winTitle to ""',
    'tell application "System Events"',
    "set frontProc to first application process whose frontmost is true",
    "set appName to name of frontProc",
    "try",  # no windows, or no accessibility permission: the title stays ""
    "set t to name of window 1 of frontProc",
    "if t is not missing value then set winTitle to t",
    "end try",
    "end tell",
    "return appName & tab & (unix id of frontProc) & linefeed & winTitle",
)
_MINIMIZE_SCRIPT = (
    "on run argv",
    'set winName to read (POSIX file "/dev/stdin") as «class utf8»',
    'tell application "System Events"',
    "set p to first application process whose unix id is ((item 1 of argv) as integer)",
    'set value of attribute "AXMinimized" of (first window of p whose name is winName) to true',
    "end tell",
    "end run",
)


def parse(text: str) -> Window | None:
    """The script's answer: the app (a tab, its pid) on the first line, the title after it."""
    first, _, title = text.rstrip("\n").partition("\n")
    app, _, pid = first.partition("\t")
    if not app.strip():
        return None
    exact = WindowHandle("macos", f"{pid}\n{title}") if pid.isdigit() and title else None
    return Focused(app.strip(), title.replace("\n", " "), exact)


def osascript(script: tuple[str, ...]) -> tuple[str, ...]:
    """The osascript argv that runs these lines (one -e each)."""
    return ("osascript", *(word for line in script for word in ("-e", line)))


class MacOSProbe(ToolProbe):
    """Asks System Events via osascript."""

    name = "macos"
    argv = osascript(_FRONT_WINDOW_SCRIPT)
    parse = staticmethod(parse)

    def run(self, argv: Sequence[str]) -> Result:
        try:
            return super().run(argv)
        except ProbeError as exc:
            if "-1743" in str(exc) or "Not authorized" in str(exc):
                raise ProbeError(
                    "osascript may not control System Events: allow it in System Settings"
                    " › Privacy & Security › Automation"
                ) from None
            raise


def put_away(window: str, env: Mapping[str, str] | None = None) -> str:
    """Minimize the window of this name of the process with this pid (and no other)."""
    pid, _, name = window.partition("\n")
    if not pid.isdigit() or not name:
        raise ProbeError("not a macOS process window")
    try:
        run_tool([*osascript(_MINIMIZE_SCRIPT), pid], stdin=name, env=env)
    except ToolFailed:  # its message may quote the window's name: say it in our words
        raise ProbeError(
            "System Events could not minimize it (it may have closed or been renamed, or"
            " osascript may not control System Events)"
        ) from None
    return "minimized to the Dock (click it there to bring it back)"


class MacIdle(ToolProbe):
    """The HID system's idle time: `ioreg -c IOHIDSystem` prints `"HIDIdleTime" = <ns>`
    (tested against a fake ioreg only, as the window probe is)."""

    name = "macos"
    argv = ("ioreg", "-c", "IOHIDSystem", "-d", "4")

    def idle_secs(self) -> float:
        match = _HID_IDLE.search(self.out(self.argv))
        if match is None:
            raise ProbeError("ioreg printed no HIDIdleTime")
        return int(match.group(1)) / 1e9


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """macOS, whatever else the session says (XQuartz sets DISPLAY)."""
    return Fit("macOS", sure=True) if platform == "darwin" else None


DESKTOP = Desktop(
    "macos",
    MacOSProbe,
    fits,
    "osascript",
    "osascript comes with macOS; allow it to control System Events",
    put_away,
)
IDLE = IdleSource("macos", MacIdle, fits, "ioreg")  # time since the last input
