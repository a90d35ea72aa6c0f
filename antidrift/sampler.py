"""Built-in window sampler: which app and window title has focus, recorded as evidence."""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Protocol

from antidrift import process

logger = logging.getLogger("antidrift.sampler")

MODES = ("auto", "x11", "macos", "off")
TOOL_TIMEOUT = 2.0  # seconds per subprocess; a sample must never stall the sampler for long
OUTPUT_CAP = 64 * 1024  # bytes kept per stream; a window title is far smaller
FAILURES_UNTIL_DOWN = 3
NO_WINDOW_IDS = (0, 1)  # X11 None and PointerRoot: nothing has focus


class ProbeError(Exception):
    """The window tool failed; the message is for people."""


class _ToolFailed(ProbeError):
    """The tool ran and exited non-zero (as opposed to missing or hanging)."""


class WindowProbe(Protocol):
    name: str

    def active_window(self) -> tuple[str, str] | None:
        """(app, title) of the focused window, None when nothing has focus."""
        ...


def _run(argv: list[str]) -> str:
    """Run a tool through the one subprocess seam: bounded time and output, its whole
    process group killed (grandchildren that keep the pipe open included)."""
    tool = argv[0]
    try:
        result = process.run(argv, timeout=TOOL_TIMEOUT, max_output=OUTPUT_CAP, name=tool)
    except process.NotFound:
        raise ProbeError(f"{tool} is not installed") from None
    except process.TimedOut:
        raise ProbeError(f"{tool} timed out after {TOOL_TIMEOUT:g} s") from None
    except process.TooLarge:
        raise ProbeError(f"{tool} printed more than {OUTPUT_CAP // 1024} KiB") from None
    except process.ProcessError as exc:
        raise ProbeError(str(exc)) from None
    if result.returncode != 0:
        what = " ".join(arg for arg in argv[:2] if not arg.startswith("-"))
        detail = result.stderr.strip().splitlines()
        raise _ToolFailed(
            f"{what} failed: {detail[0] if detail else f'exit status {result.returncode}'}"
        )
    return result.stdout


def _window_id(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ProbeError(f"{what} printed no window id: {text.strip()[:80]!r}") from None


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_TITLE_APP = re.compile(r".*\s[-–—]\s(.+)$")  # "Inbox — Mozilla Firefox" -> "Mozilla Firefox"


class X11Probe:
    """Asks the X server via xdotool (EWMH active window, else input focus) and xprop."""

    name = "x11"

    def active_window(self) -> tuple[str, str] | None:
        if not os.environ.get("DISPLAY"):
            raise ProbeError("DISPLAY is not set: no X11 session to sample")
        window = self._focused_window()
        if window is None:
            return None
        title = _run(["xdotool", "getwindowname", str(window)]).rstrip("\n")
        try:
            classes = _QUOTED.findall(_run(["xprop", "-id", str(window), "WM_CLASS"]))
        except ProbeError:
            classes = []  # a missing xprop or WM_CLASS is not worth losing the sample for
        if classes:
            app = classes[-1]
        else:
            match = _TITLE_APP.match(title)
            app = match.group(1).strip() if match else title
        return (app, title) if app or title else None

    def _focused_window(self) -> int | None:
        try:
            window = _window_id(_run(["xdotool", "getactivewindow"]), "xdotool getactivewindow")
        except _ToolFailed as ewmh_error:
            # No EWMH window manager, or it reports no active window: ask for the input focus.
            try:
                raw = _window_id(_run(["xdotool", "getwindowfocus", "-f"]), "xdotool")
            except ProbeError:
                raise ewmh_error from None
            if raw in NO_WINDOW_IDS:
                return None
            try:  # without -f xdotool walks up to the top-level window carrying WM_CLASS
                window = _window_id(_run(["xdotool", "getwindowfocus"]), "xdotool")
            except ProbeError:
                return None  # focus is on the root or a window no application owns
        return None if window in NO_WINDOW_IDS else window


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


class MacOSProbe:
    """Asks System Events via osascript for the frontmost app and its front window."""

    name = "macos"

    def active_window(self) -> tuple[str, str] | None:
        argv = ["osascript"]
        for line in _FRONT_WINDOW_SCRIPT:
            argv += ["-e", line]
        try:
            out = _run(argv)
        except ProbeError as exc:
            if "-1743" in str(exc) or "Not authorized" in str(exc):
                raise ProbeError(
                    "osascript may not control System Events: allow it in System Settings"
                    " › Privacy & Security › Automation"
                ) from None
            raise
        app, _, title = out.rstrip("\n").partition("\n")
        return (app.strip(), title.replace("\n", " ")) if app.strip() else None


def choose_probe(
    mode: str,
    *,
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], str | None] = shutil.which,
    platform: str = sys.platform,
) -> WindowProbe | None:
    """The probe for ANTIDRIFT_WINDOW_SOURCE's mode; None when there is nothing to sample."""
    mode = mode.strip().lower()
    if mode not in MODES:
        raise ValueError(f"unknown window source {mode!r}: use one of {', '.join(MODES)}")
    if mode == "x11":
        return X11Probe()
    if mode == "macos":
        return MacOSProbe()
    if mode == "auto":
        if platform == "darwin" and which("osascript"):
            return MacOSProbe()
        if env.get("DISPLAY") and which("xdotool"):
            return X11Probe()
    return None


class WindowSampler:
    """Records the focused window every `interval` seconds on a daemon thread."""

    def __init__(
        self,
        probe: WindowProbe,
        record: Callable[[str, str, datetime], None],
        *,
        interval: float = 5.0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        wanted: Callable[[], bool] = lambda: True,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.probe, self.interval = probe, interval
        self._record, self._now, self._wanted = record, now, wanted
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures = 0
        self._logged: set[str] = set()

    def start(self) -> None:
        """Start sampling on a daemon thread; a no-op when it already runs."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="antidrift-sampler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Wake the thread at once and wait for it to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """True while the thread lives and the probe works."""
        alive = self._thread is not None and self._thread.is_alive() and not self._stop.is_set()
        return alive and self._failures < FAILURES_UNTIL_DOWN

    def sample_once(self) -> None:
        """Probe once and record the answer; failures are logged, never raised."""
        if not self._wanted():
            return  # nothing would keep the sample (no active commitment): spawn nothing
        try:
            window = self.probe.active_window()
        except Exception as exc:
            self._failures += 1
            self._log_once(f"window probe {self.probe.name} failed: {exc}", exc)
            return
        if self._failures >= FAILURES_UNTIL_DOWN:
            logger.info("window probe %s works again", self.probe.name)
        self._failures = 0
        if window is None:
            return
        try:
            self._record(window[0], window[1], self._now())
        except Exception as exc:
            self._log_once(f"recording a window sample failed: {exc!r}", exc)

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.sample_once()
            next_at = max(next_at + self.interval, time.monotonic())  # no burst after a stall
            if self._stop.wait(next_at - time.monotonic()):
                break

    def _log_once(self, text: str, exc: Exception) -> None:
        if text in self._logged:
            return
        if len(self._logged) >= 100:  # error texts can vary (window ids); stay bounded
            self._logged.clear()
        self._logged.add(text)
        logger.warning("%s", text, exc_info=not isinstance(exc, ProbeError))
