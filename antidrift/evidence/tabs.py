"""A browser's active tab: the page the focused browser window shows, from a tab source
(ActivityWatch's browser watchers, Firefox's session store), added to the window probe's
sample as its `url`. A tab counts only while its browser's window has focus and its title
is the window's: a tab source that knows nothing, fails or is private adds nothing."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Protocol

from antidrift.evidence.probe import Focused, ProbeError, Window, WindowProbe

log = logging.getLogger("antidrift.sampler")

# A word in the focused window's app (lower-case) → the browser as aw-watcher-web names its
# bucket (aw-watcher-web-<browser>_<hostname>). Firefox's own windows say "firefox" (X11's
# WM_CLASS "Navigator" for some builds); Chromium-based browsers report as chrome.
BROWSERS = (
    ("firefox", "firefox"),
    ("librewolf", "firefox"),
    ("navigator", "firefox"),
    ("brave", "brave"),
    ("vivaldi", "vivaldi"),
    ("opera", "opera"),
    ("edge", "edge"),
    ("chrom", "chrome"),  # google-chrome, chromium, Chrome
)
_SPACES = re.compile(r"\s+")
PRIVATE = ""  # a tab source's answer for an incognito tab: no URL, and no other source asked


def browser_of(app: str) -> str | None:
    """The browser whose window this is ("Google-chrome" → "chrome"), or None."""
    word = app.lower()
    return next((name for part, name in BROWSERS if part in word), None)


def same_page(window_title: str, tab_title: str) -> bool:
    """Whether the window shows this tab: its title is in the window's ("Docs — Mozilla
    Firefox" shows "Docs"). A tab with no title never matches."""
    tab = _SPACES.sub(" ", tab_title).strip()
    return bool(tab) and tab in _SPACES.sub(" ", window_title)


class TabSource(Protocol):
    name: str

    def tab(self, browser: str, title: str) -> str | None:
        """The URL of the browser's active tab when its title is the window's; PRIVATE when
        that tab is incognito; None when the source does not know it."""
        ...


class WithTabs:
    """A window probe whose browser samples carry the active tab's URL."""

    def __init__(self, probe: WindowProbe, sources: Sequence[TabSource]) -> None:
        self.probe, self.sources = probe, tuple(sources)
        self.name = probe.name
        self._said: set[str] = set()

    def active_window(self) -> Window | None:
        window = self.probe.active_window()
        if window is None:
            return None
        app, title = window[0], window[1]
        browser = browser_of(app)
        if browser is None:
            return window
        for source in self.sources:
            try:
                url = source.tab(browser, title)
            except ProbeError as exc:  # the window is still evidence; the tab is not known
                self._say(f"the {source.name} tab source failed: {exc}")
                continue
            if url == PRIVATE:
                return window  # an incognito tab's URL is never kept
            if url:
                return Focused(app, title, getattr(window, "exact", None), url)
        return window

    def __getattr__(self, name: str):
        return getattr(self.probe, name)  # answers(), put_away's desktop: the probe's own

    def _say(self, text: str) -> None:
        if text not in self._said and len(self._said) < 20:
            self._said.add(text)
            log.info("%s", text)
