"""macOS: the frontmost app and its front window through osascript and System Events."""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.evidence.probe import Desktop, Fit, ProbeError, Window, run_tool

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
    "return appName & linefeed & winTitle",
)


def parse(text: str) -> Window | None:
    """The script's answer: the app on the first line, the title after it."""
    app, _, title = text.rstrip("\n").partition("\n")
    return (app.strip(), title.replace("\n", " ")) if app.strip() else None


class MacOSProbe:
    """Asks System Events via osascript."""

    name = "macos"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def active_window(self) -> Window | None:
        argv = ["osascript"]
        for line in _FRONT_WINDOW_SCRIPT:
            argv += ["-e", line]
        try:
            out = run_tool(argv, env=self._env).stdout
        except ProbeError as exc:
            if "-1743" in str(exc) or "Not authorized" in str(exc):
                raise ProbeError(
                    "osascript may not control System Events: allow it in System Settings"
                    " › Privacy & Security › Automation"
                ) from None
            raise
        return parse(out)


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """macOS, whatever else the session says (XQuartz sets DISPLAY)."""
    return Fit("macOS", sure=True) if platform == "darwin" else None


DESKTOP = Desktop(
    "macos",
    MacOSProbe,
    fits,
    "osascript",
    "osascript comes with macOS; allow it to control System Events",
)
