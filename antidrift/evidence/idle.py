"""Time since the last keyboard or pointer input: what an idle source is, and the sources
that are no desktop's own. A desktop's module defines its source (`IDLE`, an IdleSource)
beside its window probe; desktops.py lists them (IDLE_SOURCES) and choose.py picks one.

* ActivityWatch's aw-watcher-afk (bucket `aw-watcher-afk_<host>`, type `afkstatus`, data
  `{"status": "afk" | "not-afk"}`): its heartbeats stamp a not-afk event with the last input
  (so the event ends there) and an afk event with the moment input stopped (it starts there).
* X11's screensaver extension, through `xprintidle` (XScreenSaverQueryInfo; prints ms). A
  tool on the subprocess seam rather than libXss in-process: Xlib ends the whole process when
  its connection breaks, and a tool run is bounded in time.
* GNOME: `org.gnome.Mutter.IdleMonitor.GetIdletime` at /org/gnome/Mutter/IdleMonitor/Core
  (ms), through gdbus, which prints `(uint64 12345,)`.
* The freedesktop ScreenSaver interface (KDE and others): `GetSessionIdleTime` (seconds).
* macOS: `ioreg -c IOHIDSystem` prints `"HIDIdleTime" = <ns>`.
* sway (wlroots): `swayidle` kept running as a child says `idle` and `back`.
A source that keeps a child has `close()` (the sampler calls it when it stops).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from antidrift.core.isotime import from_iso
from antidrift.evidence.activitywatch import DEFAULT_URL, ActivityWatchProbe
from antidrift.evidence.probe import Fit, ProbeError, ToolProbe, load_json

AFK_WATCHER = "afk watcher (aw-watcher-afk)"
# aw-watcher-afk pings every few seconds: an afk event it has not extended for this long (or
# a not-afk one older than its 3-minute timeout and this) means the watcher has stopped.
AFK_STALE = timedelta(seconds=60)
AFK_TIMEOUT = timedelta(minutes=3)
_GDBUS_NUMBER = re.compile(r"^\((?:u?int(?:32|64) )?(\d+),\)$")


class IdleProbe(Protocol):
    name: str

    def idle_secs(self) -> float:
        """Seconds since the last input; ProbeError when the source cannot tell."""
        ...


def afk_bucket(hostname: str) -> str:
    return f"aw-watcher-afk_{hostname}"


def parse_afk(text: str, now: datetime) -> float:
    """aw-watcher-afk's newest event → seconds since the last input (0 before any event)."""
    events = load_json(text, "ActivityWatch answered no JSON")
    if not isinstance(events, list):
        raise ProbeError("ActivityWatch answered no list of events")
    if not events:
        return 0.0
    event = events[0]
    data = event.get("data") if isinstance(event, dict) else None
    status = data.get("status") if isinstance(data, dict) else None
    if status not in ("afk", "not-afk"):
        raise ProbeError("ActivityWatch's newest afk event has no status")
    try:
        started = from_iso(event["timestamp"], naive=UTC)
        ended = started + timedelta(seconds=float(event.get("duration") or 0))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise ProbeError("ActivityWatch's newest afk event has no valid timestamp") from None
    stale = now - ended > AFK_STALE if status == "afk" else now - ended > AFK_TIMEOUT + AFK_STALE
    if stale:
        raise ProbeError(
            "ActivityWatch's afk watcher has not reported since"
            f" {ended.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC (is aw-watcher-afk running?)"
        )
    since = started if status == "afk" else ended  # afk: input stopped when it began
    return max(0.0, (now - since).total_seconds())


class ActivityWatchIdle:
    """aw-watcher-afk's newest event, from aw-server (ANTIDRIFT_AW_URL)."""

    name = ActivityWatchProbe.name

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        hostname: str | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._aw = ActivityWatchProbe(url)
        self.bucket = afk_bucket(hostname or socket.gethostname())
        self._now = now

    def idle_secs(self) -> float:
        return parse_afk(self._aw.newest(self.bucket, AFK_WATCHER), self._now())


def gdbus_number(text: str, what: str) -> int:
    """The one number of a gdbus reply such as `(uint64 12345,)`."""
    match = _GDBUS_NUMBER.match(text.strip())
    if match is None:
        raise ProbeError(f"{what} answered no number")
    return int(match.group(1))


class ScreenSaverIdle(ToolProbe):
    """The freedesktop ScreenSaver interface (KDE Plasma and others) over the session bus."""

    name = "freedesktop"
    argv = (
        "gdbus", "call", "--session", "--dest", "org.freedesktop.ScreenSaver",
        "--object-path", "/org/freedesktop/ScreenSaver",
        "--method", "org.freedesktop.ScreenSaver.GetSessionIdleTime",
    )  # fmt: skip

    def idle_secs(self) -> float:
        return float(gdbus_number(self.out(self.argv), "The desktop's screensaver"))


def any_bus(env: Mapping[str, str], platform: str) -> Fit | None:
    """Any desktop session with a session bus may offer the freedesktop interface."""
    if env.get("DBUS_SESSION_BUS_ADDRESS") and platform != "darwin":
        return Fit("a session bus")
    return None


@dataclass(frozen=True)
class IdleSource:
    """One desktop's idle source: its name, how to build it, when it fits, its tool."""

    name: str
    build: Callable[[Mapping[str, str] | None], IdleProbe]
    fits: Callable[[Mapping[str, str], str], Fit | None]
    tool: str


FREEDESKTOP = IdleSource("freedesktop", ScreenSaverIdle, any_bus, "gdbus")


def answers(probe: IdleProbe) -> bool:
    """Whether the source tells an idle time now."""
    try:
        probe.idle_secs()
    except ProbeError:
        return False
    return True


def close(probe: IdleProbe | None) -> None:
    """Stop what a source keeps running (swayidle's child); most keep nothing."""
    stop = getattr(probe, "close", None)
    if stop is not None:
        stop()
