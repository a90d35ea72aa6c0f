"""What every window probe is: a name and one call that answers the focused window; and
what the registry (desktops.py) knows of each desktop's source."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from antidrift import process
from antidrift.core.errors import Error

# (app, title) of the focused window.
Window = tuple[str, str]


@dataclass(frozen=True)
class WindowHandle:
    """Which window exactly, as the probe saw it when it sampled: the desktop whose put_away
    takes it and that desktop's own id for it (never stored, never shown)."""

    desktop: str
    id: str


class Focused(tuple):
    """(app, title) of the focused window, as every reader of a probe takes it, and `exact`:
    which window it is (a WindowHandle its desktop's put_away takes), when the probe could
    tell at sample time; None when it could not: the teeth leave that window alone. `url`:
    a browser's active tab, when a tab source (tabs.py) knew it."""

    exact: WindowHandle | None
    url: str | None

    def __new__(
        cls, app: str, title: str, exact: WindowHandle | None = None, url: str | None = None
    ) -> Focused:
        pair = super().__new__(cls, (app, title))
        pair.exact, pair.url = exact, url
        return pair


TOOL_TIMEOUT = 2.0  # seconds per tool run: a sample must never stall the sampler for long
OUTPUT_CAP = 1 << 20  # bytes of stdout; a sway tree of a hundred windows is ~100 KB
_LOG_PREFIX = re.compile(r"^\d\d:\d\d:\d\d\.\d+ \[\w+\] \[[^\]]*\] ")  # sway's log lines


class ProbeError(Error):
    """The window source failed; the message is a sentence for people (never a title)."""


class ToolFailed(ProbeError):
    """The tool ran and exited non-zero (as opposed to missing or hanging); `result` is what
    it printed, for a caller that knows the tool's own error format."""

    def __init__(self, message: str, result: process.Result | None = None) -> None:
        super().__init__(message)
        self.result = result


def load_json(text: str, unreadable: str) -> object:
    """The JSON a tool printed; ProbeError(unreadable) when it is none. The text is never
    echoed: it may hold a window title."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ProbeError(unreadable) from None


def text_field(value: object) -> str:
    """A field of a tool's JSON as text: "" when it is missing or not a string."""
    return value if isinstance(value, str) else ""


class WindowProbe(Protocol):
    name: str

    def active_window(self) -> Window | None:
        """(app, title) of the focused window, None when nothing has focus."""
        ...


@dataclass(frozen=True)
class Fit:
    """Why this session looks like a desktop. `sure`: the platform or a variable only that
    desktop sets (its socket) says so, not a name in XDG_CURRENT_DESKTOP or the display kind;
    `auto` tries sure fits first."""

    reason: str
    sure: bool = False


@dataclass(frozen=True)
class Desktop:
    """One desktop's window source as the registry lists it; its module defines it."""

    name: str  # ANTIDRIFT_WINDOW_SOURCE's word for it
    build: Callable[[Mapping[str, str] | None], WindowProbe]  # the session's env (None: ours)
    fits: Callable[[Mapping[str, str], str], Fit | None]  # (env, sys.platform): for `auto`
    tool: str  # the program its probe runs; `auto` passes the desktop by when it is missing
    install: str  # what to do when that program is missing (doctor, the start-up log)
    # The teeth (issue 22): put_away(id, env) puts the window its probe identified (the id
    # of its WindowHandle) away on this desktop, through run_tool, and says how (a sentence
    # with the way back); a ProbeError when it could not. None: this desktop cannot.
    put_away: Callable[[str, Mapping[str, str] | None], str] | None = None


def desktop_names(env: Mapping[str, str]) -> set[str]:
    """The lower-cased names in XDG_CURRENT_DESKTOP ("ubuntu:GNOME" → {"ubuntu", "gnome"})."""
    desktop = env.get("XDG_CURRENT_DESKTOP", "")
    return {part.strip().lower() for part in desktop.split(":") if part.strip()}


def socket_or_name(env: Mapping[str, str], variable: str, name: str) -> Fit | None:
    """A compositor's session: its socket's variable is set (sure), else its name is in
    XDG_CURRENT_DESKTOP."""
    if env.get(variable):
        return Fit(f"{variable} is set", sure=True)
    if name in desktop_names(env):
        return Fit(f"XDG_CURRENT_DESKTOP={env.get('XDG_CURRENT_DESKTOP', '')}")
    return None


def run_tool(
    argv: list[str],
    *,
    stdin: str = "",
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_output: int = OUTPUT_CAP,
) -> process.Result:
    """Run a window tool through the one subprocess seam (at most TOOL_TIMEOUT seconds unless
    told otherwise); a failure becomes a ProbeError."""
    tool = argv[0]
    try:
        result = process.run(
            argv,
            stdin,
            timeout=TOOL_TIMEOUT if timeout is None else timeout,
            max_output=max_output,
            env=dict(env) if env is not None else None,
            name=tool,
        )
    except process.TooLarge:
        raise ProbeError(f"{tool} printed more than {max_output // 1024} KiB") from None
    except process.ProcessError as exc:
        # The seam's own sentence, named after the tool: "… is not installed", "… timed out
        # after 2 s", "… could not be started: …".
        raise ProbeError(str(exc)) from None
    if result.returncode != 0:
        what = " ".join(arg for arg in argv[:2] if not arg.startswith("-"))
        raise ToolFailed(f"{what} failed: {failure_detail(result)}", result)
    return result


class ToolProbe:
    """A desktop's probe: its tool run through run_tool in the session's environment (None:
    ours). A desktop fills in `name`, `argv` (the query) and `parse` (what the tool printed →
    the focused window; the parsing stays in the desktop's module). One that asks in more
    steps writes its own `active_window` over `out`; one that words a tool's failure its own
    way wraps `run`."""

    name = ""
    argv: Sequence[str] = ()

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def active_window(self) -> Window | None:
        """(app, title) of the focused window, None when nothing has focus."""
        return self.parse(self.out(self.argv))

    @staticmethod
    def parse(text: str) -> Window | None:
        raise NotImplementedError

    def run(self, argv: Sequence[str]) -> process.Result:
        """One run of the tool in the session's environment; a failure is a ProbeError."""
        return run_tool(list(argv), env=self._env)

    def out(self, argv: Sequence[str]) -> str:
        """What one run of the tool printed."""
        return self.run(argv).stdout


def failure_detail(result: process.Result) -> str:
    """The first line a failing tool printed: stderr, else stdout (hyprctl), else the status."""
    for stream in (result.stderr, result.stdout):
        for line in stream.splitlines():
            if line.strip():
                return _LOG_PREFIX.sub("", line.strip())[:200]
    return f"exit status {result.returncode}"
