"""Tab sources: Firefox's session store (a real mozLz4 file, written with lz4 as Firefox
writes it), the browser watcher's events, and the wrapper that adds a tab's URL to a sample."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import lz4.block
import pytest

from antidrift.evidence.activitywatch import tab_buckets, tab_of
from antidrift.evidence.firefox import FirefoxSessions, profiles, read_mozlz4
from antidrift.evidence.probe import Focused, ProbeError
from antidrift.evidence.sampler import WindowSampler
from antidrift.evidence.tabs import PRIVATE, WithTabs, browser_of

DOCS = "https://docs.python.org/3/library/re.html"
VIDEO = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42"


def mozlz4(session: dict) -> bytes:
    """What Firefox writes: the magic, the size (4 bytes, little-endian), one LZ4 block."""
    raw = json.dumps(session).encode()
    return b"mozLz40\0" + len(raw).to_bytes(4, "little") + lz4.block.compress(raw, store_size=False)


def tab(*entries: tuple[str, str], index: int | None = None) -> dict:
    found = [{"url": url, "title": title} for url, title in entries]
    return {"entries": found, "index": index or len(found)}


def firefox_home(tmp_path, session: dict, *, profile: str = "abcd.default-release"):
    """A HOME with profiles.ini naming one profile whose session store holds `session`."""
    root = tmp_path / ".mozilla" / "firefox"
    store = root / profile / "sessionstore-backups"
    store.mkdir(parents=True)
    (root / "profiles.ini").write_text(
        "[Install4F96D1932A9F858E]\nDefault=" + profile + "\nLocked=1\n\n"
        "[Profile0]\nName=default-release\nIsRelative=1\nPath=" + profile + "\n"
        "[Profile1]\nName=default\nIsRelative=1\nPath=other.default\nDefault=1\n",
        encoding="utf-8",
    )
    (store / "recovery.jsonlz4").write_bytes(mozlz4(session))
    return {"HOME": str(tmp_path)}, store / "recovery.jsonlz4"


class Showing:
    """A window probe that answers one window (the desktop's, as sampled)."""

    name = "fake"

    def __init__(self, app: str, title: str) -> None:
        self.window = Focused(app, title)

    def active_window(self):
        return self.window


class Says:
    name = "scripted"

    def __init__(self, answer) -> None:
        self.answer, self.asked = answer, []

    def tab(self, browser, title):
        self.asked.append((browser, title))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


SESSION = {
    "windows": [
        {"tabs": [tab((DOCS, "re — Python docs"))], "selected": 1},
        {  # the second window: its second tab selected, that tab's second entry current
            "tabs": [
                tab((DOCS, "re — Python docs")),
                tab(("https://example.org/", "Example"), (VIDEO, "A video - YouTube"), index=2),
            ],
            "selected": 2,
        },
        {"tabs": [tab(("https://bank.example/", "Bank"))], "selected": 1, "isPrivate": True},
    ],
    "_closedWindows": [{"tabs": [tab(("https://closed.example/", "A video - YouTube"))]}],
}


def test_the_selected_tab_of_the_window_whose_title_matches(tmp_path):
    env, _ = firefox_home(tmp_path, SESSION)
    firefox = FirefoxSessions(env)
    assert firefox.tab("firefox", "A video - YouTube — Mozilla Firefox") == VIDEO
    assert firefox.tab("firefox", "re — Python docs — Mozilla Firefox") == DOCS
    assert firefox.tab("firefox", "Example — Mozilla Firefox") is None  # not selected
    assert firefox.tab("firefox", "Bank — Mozilla Firefox") is None  # a private window
    assert firefox.tab("chrome", "A video - YouTube - Google Chrome") is None


def test_a_private_window_never_takes_the_url_of_a_normal_tab_with_its_title(tmp_path):
    """Private windows are not in the store, but a normal window's tab may have the same
    title (the same page opened privately): its URL must not be kept for the private one."""
    env, _ = firefox_home(tmp_path, SESSION)
    firefox = FirefoxSessions(env)
    for title in (
        "A video - YouTube — Mozilla Firefox Private Browsing",
        "A video - YouTube — Firefox Private Browsing",
        "A video - YouTube — Mozilla Firefox (Privater Modus)",  # a German build
        "A video - YouTube — Mozilla Firefox — Navigation privée",
        "A video - YouTube — Firefox Nightly Privat",
    ):
        assert firefox.tab("firefox", title) == PRIVATE, title
    assert firefox.tab("firefox", "Private Browsing tips — Mozilla Firefox") is None
    # A normal window: the brand alone ends it, whatever the page's own title says.
    normal = "Mozilla Firefox (Privater Modus) explained — Mozilla Firefox"
    assert firefox.tab("firefox", normal) != PRIVATE


def test_the_store_is_read_again_when_firefox_rewrites_it(tmp_path):
    env, path = firefox_home(tmp_path, SESSION)
    firefox = FirefoxSessions(env)
    assert firefox.tab("firefox", "Example — Mozilla Firefox") is None
    moved = {"windows": [{"tabs": [tab(("https://example.org/", "Example"))], "selected": 1}]}
    path.write_bytes(mozlz4(moved))  # a smaller file: read again
    assert firefox.tab("firefox", "Example — Mozilla Firefox") == "https://example.org/"


def test_the_default_profile_comes_first(tmp_path):
    firefox_home(tmp_path, SESSION)
    root = tmp_path / ".mozilla" / "firefox"
    assert profiles(root) == [root / "abcd.default-release", root / "other.default"]
    assert profiles(tmp_path / "nowhere") == []


def test_a_broken_store_is_a_sentence_and_the_window_is_still_sampled(tmp_path):
    env, path = firefox_home(tmp_path, SESSION)
    path.write_bytes(b"mozLz40\0" + (99).to_bytes(4, "little") + b"\xff" * 20)
    with pytest.raises(ProbeError, match="could not be decompressed"):
        read_mozlz4(path.read_bytes())
    with pytest.raises(ProbeError, match="not a mozLz4 file"):
        read_mozlz4(b'{"windows": []}')
    probe = WithTabs(Showing("firefox", "A video - YouTube — Mozilla Firefox"), [
        FirefoxSessions(env)
    ])  # fmt: skip
    window = probe.active_window()
    assert window == ("firefox", "A video - YouTube — Mozilla Firefox")
    assert window.url is None


def test_only_a_browser_window_asks_the_tab_sources():
    source = Says(DOCS)
    assert WithTabs(Showing("code", "re — Python docs"), [source]).active_window().url is None
    assert source.asked == []
    window = WithTabs(Showing("Google-chrome", "re - Google Chrome"), [source]).active_window()
    assert window.url == DOCS and source.asked == [("chrome", "re - Google Chrome")]
    assert [browser_of(a) for a in ("firefox", "Navigator", "Brave-browser", "kitty")] == [
        "firefox",
        "firefox",
        "brave",
        None,
    ]


def test_an_incognito_answer_stops_the_search():
    later = Says(VIDEO)
    probe = WithTabs(Showing("firefox", "A video - YouTube"), [Says(PRIVATE), later])
    assert probe.active_window().url is None
    assert later.asked == []  # no other source is asked for the private tab's URL


def test_a_failing_source_leaves_the_next_one_to_answer():
    probe = WithTabs(Showing("firefox", "x"), [Says(ProbeError("down")), Says(DOCS)])
    assert probe.active_window().url == DOCS


def test_the_watcher_event_counts_only_for_the_window_it_shows():
    def events(**data) -> str:
        now = datetime.now(UTC).isoformat()
        return json.dumps([{"timestamp": now, "duration": 5, "data": data}])

    shown = events(url=VIDEO, title="A video - YouTube", incognito=False, tabCount=2)
    assert tab_of(shown, "A video - YouTube - Google Chrome") == VIDEO
    assert tab_of(shown, "Inbox - Google Chrome") is None
    private = events(url=VIDEO, title="A video - YouTube", incognito=True)
    assert tab_of(private, "A video - YouTube - Google Chrome") == PRIVATE
    assert tab_of("[]", "anything") is None
    buckets = {
        "aw-watcher-web-chrome_host": {"type": "web.tab.current"},
        "aw-watcher-web-chrome-beta_host": {"type": "web.tab.current"},
        "aw-watcher-web-chrome_other": {"type": "something else"},
        "aw-watcher-window_host": {"type": "currentwindow"},
    }
    assert tab_buckets(json.dumps(buckets), "chrome") == ["aw-watcher-web-chrome_host"]


def test_the_sampler_hands_the_url_to_the_record():
    seen = []
    sampler = WindowSampler(
        WithTabs(Showing("firefox", "re — Python docs"), [Says(DOCS)]),
        lambda app, title, at, *rest, **more: seen.append((app, title, rest, more)),
    )
    sampler.sample_once()
    assert seen == [("firefox", "re — Python docs", (), {"url": DOCS})]
