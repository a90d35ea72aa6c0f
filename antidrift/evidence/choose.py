"""Which window source to sample: ANTIDRIFT_WINDOW_SOURCE, or for `auto` the session's own.

`auto` asks each desktop of the registry (desktops.py) whether the session looks like it
(its socket variable, XDG_CURRENT_DESKTOP, DISPLAY without WAYLAND_DISPLAY, the platform),
picks the first whose tool is installed, and falls back to ActivityWatch when its server
answers. Under Wayland xdotool sees only XWayland windows, so an unknown Wayland compositor
never gets the X11 probe. No desktop is named here.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from antidrift.evidence.activitywatch import DEFAULT_URL, ActivityWatchProbe, ActivityWatchTabs
from antidrift.evidence.desktops import ACTIVITYWATCH, IDLE_SOURCES, desktop, fitting, modes
from antidrift.evidence.desktops import MODES as MODES  # the accepted words, re-exported
from antidrift.evidence.firefox import FirefoxSessions
from antidrift.evidence.idle import ActivityWatchIdle, IdleProbe, answers, close
from antidrift.evidence.probe import Desktop, ProbeError, WindowProbe
from antidrift.evidence.tabs import WithTabs

AW_ADVICE = (
    "run ActivityWatch (aw-server with aw-watcher-window, or awatcher on Wayland):"
    " AntiDrift reads it at ANTIDRIFT_AW_URL"
)


@dataclass(frozen=True)
class SourceChoice:
    """The probe to sample with (None: none), why, and what would make one work."""

    probe: WindowProbe | None
    reason: str
    advice: str = ""

    @property
    def name(self) -> str:
        return self.probe.name if self.probe is not None else "none"


def _no_fit_note(env: Mapping[str, str]) -> str:
    """Why no desktop fits this session."""
    if env.get("WAYLAND_DISPLAY"):
        desktop_var = env.get("XDG_CURRENT_DESKTOP", "") or "unset"
        return (
            f"a Wayland session of a compositor AntiDrift has no probe for"
            f" (XDG_CURRENT_DESKTOP={desktop_var}); xdotool would see only XWayland windows"
        )
    return "no desktop session found (no DISPLAY, WAYLAND_DISPLAY or SWAYSOCK)"


def new_probe(
    name: str, env: Mapping[str, str] | None = None, aw_url: str = DEFAULT_URL
) -> WindowProbe:
    """The probe of one source by its name."""
    if name == ACTIVITYWATCH:
        return ActivityWatchProbe(aw_url)
    entry = desktop(name)
    if entry is None:
        raise ValueError(f"unknown window source {name!r}")
    return entry.build(env)


def choose(
    mode: str,
    *,
    env: Mapping[str, str] = os.environ,
    aw_url: str = DEFAULT_URL,
    which: Callable[[str], str | None] = shutil.which,
    platform: str = sys.platform,
    aw_answers: Callable[[str], bool] | None = None,
    try_first: bool = False,
) -> SourceChoice:
    """The source for ANTIDRIFT_WINDOW_SOURCE's mode. `try_first` samples the session's probe
    once so that a desktop whose tool or extension fails can fall back to ActivityWatch."""
    mode = mode.strip().lower()
    if mode not in modes():
        raise ValueError(f"unknown window source {mode!r}: use one of {', '.join(modes())}")
    if mode == "off":
        return SourceChoice(None, "ANTIDRIFT_WINDOW_SOURCE=off")
    if mode != "auto":
        return SourceChoice(new_probe(mode, env, aw_url), f"ANTIDRIFT_WINDOW_SOURCE={mode}")
    answers = aw_answers or (lambda url: ActivityWatchProbe(url, timeout=1.0).answers())
    path = env.get("PATH")
    found = fitting(env, platform)
    missing: list[Desktop] = []
    failed = ""
    for entry, fit in found:
        name, why = entry.name, fit.reason
        if not _which(which, entry.tool, path):
            missing.append(entry)
            continue
        probe = entry.build(env)
        if try_first:
            try:
                probe.active_window()
            except ProbeError as exc:
                if answers(aw_url):
                    return SourceChoice(
                        ActivityWatchProbe(aw_url),
                        f"{why}, but the {name} probe failed ({exc}); ActivityWatch answers"
                        f" at {aw_url}",
                    )
                failed = f"; the {name} probe failed for now: {exc}"
        return SourceChoice(
            probe, why + failed, f"{entry.install}; or {AW_ADVICE}" if failed else ""
        )
    reason = (
        _no_fit_note(env)
        if not found
        else "the desktop's tool is missing: " + ", ".join(f"{d.tool} ({d.name})" for d in missing)
    )
    if answers(aw_url):
        return SourceChoice(
            ActivityWatchProbe(aw_url), f"{reason}; ActivityWatch answers at {aw_url}"
        )
    advice = "; or ".join([*(d.install for d in missing), AW_ADVICE])
    return SourceChoice(None, reason, advice + "; or post samples to /evidence/window")


def _which(which: Callable[[str], str | None], tool: str, path: str | None) -> bool:
    # The session's PATH decides (a server started with a PATH of its own looks there).
    if which is shutil.which:
        return shutil.which(tool, path=path) is not None
    return which(tool) is not None


def choose_idle(
    window_source: str,
    *,
    env: Mapping[str, str],
    aw_url: str = DEFAULT_URL,
    platform: str = sys.platform,
) -> tuple[IdleProbe | None, str]:
    """The idle source for this session and why: ActivityWatch's afk watcher when the
    windows come from ActivityWatch, else the first fitting desktop source that answers, else
    ActivityWatch's when it answers; (None, why) when nothing tells."""
    aw = ActivityWatchIdle(aw_url)
    if window_source == ACTIVITYWATCH:
        # Its afk watcher may start after us: until it reports, no one is ever away (the
        # sampler logs the failure once).
        return aw, "ActivityWatch's afk watcher (the window source)"
    tried: list[str] = []
    for source in IDLE_SOURCES:
        fit = source.fits(env, platform)
        if fit is None or shutil.which(source.tool, path=env.get("PATH")) is None:
            continue
        probe = source.build(env)
        if answers(probe):
            return probe, f"{source.name} ({fit.reason})"
        close(probe)
        tried.append(source.name)
    if window_source != ACTIVITYWATCH and answers(aw):
        return aw, "ActivityWatch's afk watcher"
    said = f" ({', '.join(tried)} did not answer)" if tried else ""
    return None, f"no idle time from this desktop{said}"


def with_tabs(
    probe: WindowProbe, env: Mapping[str, str] | None = None, aw_url: str = DEFAULT_URL
) -> WindowProbe:
    """The probe whose browser windows carry their active tab's URL: from ActivityWatch's
    browser watchers, else from Firefox's session store (the session's HOME)."""
    aw = probe if isinstance(probe, ActivityWatchProbe) else ActivityWatchProbe(aw_url)
    return WithTabs(probe, (ActivityWatchTabs(aw), FirefoxSessions(env)))
