"""The browser's active tab from aw-watcher-web's bucket on a real aw-server 0.12.0, fed what
the watchers send: a tab counts only while its browser's window has focus, and an incognito
tab's URL is never taken."""

from __future__ import annotations

import pytest

from antidrift.evidence import WindowSampler, with_tabs
from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.server import bootstrap
from antidrift.settings import load

DOCS = "https://docs.python.org/3/library/sqlite3.html?highlight=row#sqlite3.Row"


@pytest.fixture
def probe(aw, tmp_path):
    # No Firefox profile under this HOME: ActivityWatch is the only tab source.
    return with_tabs(ActivityWatchProbe(aw.url), {"HOME": str(tmp_path)}, aw.url)


def test_a_focused_browser_window_carries_its_active_tab(aw, probe):
    web = aw.create_web_bucket("firefox")
    aw.heartbeat("firefox", "sqlite3 — Python 3 docs — Mozilla Firefox")
    assert getattr(probe.active_window(), "url", None) is None  # the watcher has not said
    aw.tab_heartbeat(web, DOCS, "sqlite3 — Python 3 docs")
    window = probe.active_window()
    assert window == ("firefox", "sqlite3 — Python 3 docs — Mozilla Firefox")
    assert window.url == DOCS


def test_the_tab_counts_only_while_its_browser_has_focus(aw, probe):
    web = aw.create_web_bucket("chrome")
    aw.tab_heartbeat(web, "https://www.youtube.com/watch?v=1", "A video - YouTube")
    aw.heartbeat("code", "A video - YouTube notes.md — Code")  # the title even contains it
    assert getattr(probe.active_window(), "url", None) is None
    aw.heartbeat("Google-chrome", "A video - YouTube - Google Chrome")
    assert probe.active_window().url == "https://www.youtube.com/watch?v=1"
    # The browser's other window has focus now: the watcher's tab is not the one shown.
    aw.heartbeat("Google-chrome", "Inbox - Google Chrome")
    assert getattr(probe.active_window(), "url", None) is None


def test_an_incognito_tab_gives_no_url(aw, probe):
    web = aw.create_web_bucket("firefox")
    aw.heartbeat("firefox", "Bank — Mozilla Firefox Private Browsing")
    aw.tab_heartbeat(web, "https://bank.example/account", "Bank", incognito=True)
    window = probe.active_window()
    assert window == ("firefox", "Bank — Mozilla Firefox Private Browsing")
    assert getattr(window, "url", None) is None


def test_the_sampler_stores_the_tab_s_url_and_site_and_never_an_incognito_one(
    aw, probe, make_controller, clock, store
):
    controller = make_controller()
    controller.enter_planning()
    controller.start_manual_commitment("Read up on sqlite3.Row", "The export uses it", 30)
    sampler = WindowSampler(probe, controller.record_window, interval=3600, now=clock.now)
    web = aw.create_web_bucket("firefox")
    aw.heartbeat("firefox", "sqlite3 — Python 3 docs — Mozilla Firefox")
    aw.tab_heartbeat(web, DOCS, "sqlite3 — Python 3 docs")
    sampler.sample_once()
    aw.heartbeat("firefox", "Bank — Mozilla Firefox Private Browsing")
    aw.tab_heartbeat(web, "https://bank.example/account?id=7", "Bank", incognito=True)
    sampler.sample_once()
    first, second = (sample for _, sample in store.sample_rows)
    assert (first.url, first.site) == (DOCS.partition("#")[0], "docs.python.org")
    assert (second.title, second.url, second.site) == (
        "Bank — Mozilla Firefox Private Browsing",
        None,
        None,
    )
    assert controller.snapshot().evidence.last.site is None


def test_the_server_s_sampler_reads_tabs_from_aw_server_and_firefox(aw, tmp_path):
    env = {
        "PATH": str(tmp_path),
        "HOME": str(tmp_path),
        "ANTIDRIFT_WINDOW_SOURCE": "activitywatch",
        "ANTIDRIFT_AW_URL": aw.url,
    }
    runtime = bootstrap.build_runtime(load(env, data_dir=tmp_path / "data"))
    try:
        sampler = runtime.find_sampler()
        web = aw.create_web_bucket("firefox")
        aw.heartbeat("firefox", "sqlite3 — Python 3 docs — Mozilla Firefox")
        aw.tab_heartbeat(web, DOCS, "sqlite3 — Python 3 docs")
        assert sampler.probe.active_window().url == DOCS
        assert [s.name for s in sampler.probe.sources] == ["activitywatch", "firefox"]
    finally:
        runtime.stop()
