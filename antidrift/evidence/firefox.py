"""Firefox's session store, a tab source: the selected tab of the Firefox window whose
title is the focused one's, from a profile on this machine.

Firefox rewrites `<profile>/sessionstore-backups/recovery.jsonlz4` about every 15 s while it
runs: mozLz4 is 8 bytes `mozLz40\\0`, a 4-byte little-endian size, then one LZ4 block of
JSON (`windows[].tabs[].entries[]` with `url` and `title`, `tabs[].index` the 1-based
current entry, `windows[].selected` the 1-based selected tab). Private windows are never
written there, and one marked `isPrivate` is passed by; a focused window whose title says
private browsing, in any language (is_private_window), gets no URL (a normal tab of the same
title is not its page). The
profiles are named in `profiles.ini` (the `[Install…]` section's `Default=`, else
`Default=1`, else every one).
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from pathlib import Path

from antidrift.core.outside import Unreadable, Why, parse_json, read_file
from antidrift.evidence.probe import ProbeError, text_field
from antidrift.evidence.tabs import PRIVATE, same_page

MAGIC = b"mozLz40\0"
MAX_FILE = 32 << 20  # bytes of a compressed session store (a few hundred tabs: ~1 MiB)
MAX_JSON = 64 << 20  # bytes it may decompress to (a thousand tabs with their history: ~20 MiB)
RECOVERY = Path("sessionstore-backups") / "recovery.jsonlz4"
WHAT = "Firefox's session store"
# Objects and lists in it: a thousand tabs with long histories hold a few hundred thousand.
MAX_LISTS = 1_000_000
# A window's title ends with the brand after an em dash ("… — Mozilla Firefox"); a private
# window's adds its mode to it, in the build's language ("Mozilla Firefox Private Browsing",
# "Mozilla Firefox (Privater Modus)", "Mozilla Firefox — Navigation privée").
BRANDS = ("Mozilla Firefox", "Firefox Developer Edition", "Firefox Nightly", "Firefox")
PRIVATE_WINDOW = "Private Browsing"


def is_private_window(title: str) -> bool:
    """Whether a Firefox window's title says private browsing, in any language: its brand is
    followed by more than itself (the mode), or it ends in the English words."""
    title = title.rstrip()
    if title.endswith(PRIVATE_WINDOW):
        return True
    for brand in BRANDS:
        at = title.rfind(" — " + brand)
        if at >= 0:
            return bool(title[at + 3 + len(brand) :].strip(" —()"))
    return False


# Where Firefox keeps profiles.ini, under the user's home: Linux (and its snap and flatpak
# packages), macOS.
HOMES = (
    Path(".mozilla/firefox"),
    Path("snap/firefox/common/.mozilla/firefox"),
    Path(".var/app/org.mozilla.firefox/.mozilla/firefox"),
    Path("Library/Application Support/Firefox"),
)


def read_mozlz4(data: bytes) -> bytes:
    """The bytes a mozLz4 file holds; ProbeError when it is not one."""
    if not data.startswith(MAGIC) or len(data) < 12:
        raise ProbeError("Firefox's session store is not a mozLz4 file")
    size = int.from_bytes(data[8:12], "little")
    if size > MAX_JSON:
        raise ProbeError("Firefox's session store is larger than AntiDrift reads")
    import lz4.block  # here: only a Firefox session store needs it, not every start (issue 33)

    try:
        return lz4.block.decompress(data[12:], uncompressed_size=size)
    except (lz4.block.LZ4BlockError, ValueError):
        raise ProbeError("Firefox's session store could not be decompressed") from None


def selected_tabs(session: object) -> list[tuple[str, str]]:
    """(title, url) of each open, non-private window's selected tab."""
    windows = session.get("windows") if isinstance(session, dict) else None
    found: list[tuple[str, str]] = []
    for window in windows if isinstance(windows, list) else ():
        if not isinstance(window, dict) or window.get("isPrivate"):
            continue
        tabs = window.get("tabs")
        tab = _nth(tabs, window.get("selected"))
        entry = _nth(tab.get("entries"), tab.get("index")) if isinstance(tab, dict) else None
        if isinstance(entry, dict):
            found.append((text_field(entry.get("title")), text_field(entry.get("url"))))
    return found


def _nth(items: object, one_based: object) -> object:
    if not isinstance(items, list) or not items:
        return None
    index = one_based if isinstance(one_based, int) and not isinstance(one_based, bool) else 0
    return items[index - 1] if 1 <= index <= len(items) else items[-1]


def profiles(root: Path) -> list[Path]:
    """The profile directories profiles.ini names under `root`: the default first."""
    ini = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        ini.read(root / "profiles.ini", encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError, OSError):
        return []

    def where(path: str, relative: str = "1") -> Path:
        return root / path if relative.strip() != "0" else Path(path)

    named = [
        (section, where(ini[section].get("Path", ""), ini[section].get("IsRelative", "1")))
        for section in ini.sections()
        if section.startswith("Profile") and ini[section].get("Path")
    ]
    installs = [ini[s].get("Default") for s in ini.sections() if s.startswith("Install")]
    first = [root / p for p in installs if p] + [
        path for section, path in named if ini[section].get("Default") == "1"
    ]
    rest = [path for _, path in named if path not in first]
    return list(dict.fromkeys(first + rest))


class FirefoxSessions:
    """The selected tab of the Firefox window whose title matches (a tab source)."""

    name = "firefox"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        home = env.get("HOME")
        self._roots = [Path(home) / where for where in HOMES] if home else []
        self._cache: dict[Path, tuple[tuple[int, int], list[tuple[str, str]]]] = {}

    def tab(self, browser: str, title: str) -> str | None:
        if browser != "firefox":
            return None
        if is_private_window(title):
            # Never in the store; a normal tab of the same title is not this window's page.
            return PRIVATE
        for root in self._roots:
            for profile in profiles(root):
                for tab_title, url in self._tabs(profile / RECOVERY):
                    if same_page(title, tab_title) and url:
                        return url
        return None

    def _tabs(self, path: Path) -> list[tuple[str, str]]:
        """The file's selected tabs, read again only when it changed."""
        try:
            stat = path.stat()
        except OSError:
            return []
        stamp = (stat.st_mtime_ns, stat.st_size)
        kept = self._cache.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            data = read_file(path, max_bytes=MAX_FILE, what=WHAT)
            tabs = selected_tabs(parse_json(read_mozlz4(data), what=WHAT, max_containers=MAX_LISTS))
        except Unreadable as exc:
            if exc.why is Why.MISSING:
                return []
            raise ProbeError(exc.message) from None
        self._cache = {path: (stamp, tabs)} | {p: v for p, v in self._cache.items() if p != path}
        return tabs
