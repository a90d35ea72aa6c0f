"""The browser's active tab from aw-watcher-web's bucket on a real aw-server 0.12.0, fed what
the watchers send: a tab counts only while its browser's window has focus, and an incognito
tab's URL is never taken."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest

from antidrift.evidence import WindowSampler, with_tabs
from antidrift.evidence.activitywatch import MAX_BUCKETS, ActivityWatchProbe, ActivityWatchTabs
from antidrift.evidence.probe import ProbeError
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
    assert (first.url, first.site) == (DOCS.partition("?")[0], "docs.python.org")
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


def test_a_listener_with_thousands_of_slow_buckets_holds_a_sample_one_deadline():
    """Issue 41: something listening where aw-server should be, listing thousands of tab
    buckets that each answer slowly, stalled the window watcher for over an hour (a deadline
    per request). Now the whole call has one deadline, and at most 100 buckets are asked."""
    asked: list[str] = []
    buckets = {
        f"aw-watcher-web-firefox_host{i:04d}": {"type": "web.tab.current"} for i in range(3000)
    }

    class Slow(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            asked.append(self.path)
            body = json.dumps(buckets if self.path == "/api/0/buckets/" else []).encode()
            if self.path != "/api/0/buckets/":
                time.sleep(0.05)  # each bucket answers, slowly
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        probe = ActivityWatchProbe(f"http://127.0.0.1:{server.server_port}", timeout=1.0)
        tabs = ActivityWatchTabs(probe)
        began = time.monotonic()
        try:
            found = tabs.tab("firefox", "Page — Mozilla Firefox")
        except ProbeError as exc:
            found = exc  # the deadline passed: a sentence, as any slow source's
        took = time.monotonic() - began
        assert took < 1.5, took
        assert found is None or isinstance(found, ProbeError)
        assert len(tabs._buckets["firefox"][1]) == MAX_BUCKETS
        assert len(asked) <= 1 + MAX_BUCKETS
    finally:
        server.shutdown()
        server.server_close()
