"""The ActivityWatch bridge's bounded HTTP read, against a loopback stand-in of aw-server that
misbehaves on purpose (the real aw-server is in tests/integration/test_evidence_aw_server.py)."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime

import pytest

from antidrift.evidence.activitywatch import RESPONSE_CAP, ActivityWatchProbe
from antidrift.evidence.probe import ProbeError
from tests.support.http_standin import StandIn

NOW = datetime(2026, 12, 3, 6, 45, tzinfo=UTC)
EVENT = [{"id": 1, "timestamp": NOW.isoformat(), "duration": 1.0,
          "data": {"app": "Firefox", "title": "Inbox"}}]  # fmt: skip


def aw_stand_in() -> StandIn:
    return StandIn(lambda handler: handler.reply(200, EVENT))


@pytest.fixture
def aw():
    stand_in = aw_stand_in()
    yield stand_in
    stand_in.close()


def probe(url: str, **kw) -> ActivityWatchProbe:
    return ActivityWatchProbe(url, hostname="vm", now=lambda: NOW, **kw)


def test_the_bridge_asks_for_the_newest_event_of_the_hosts_window_bucket(aw):
    assert probe(aw.url).active_window() == ("Firefox", "Inbox")
    assert aw.paths == ["/api/0/buckets/aw-watcher-window_vm/events?limit=1"]


def test_a_missing_bucket_names_the_bucket_and_the_watcher_to_run(aw):
    aw.answer = lambda h: h.reply(404, {"message": "There's no bucket named aw-watcher-window_vm"})
    with pytest.raises(ProbeError, match="no bucket aw-watcher-window_vm: run its window watcher"):
        probe(aw.url).active_window()


def test_a_refused_host_header_says_which_url_to_use(aw):
    aw.answer = lambda h: h.reply(400, {"message": "host header is invalid (was aw.lan)"})
    with pytest.raises(ProbeError, match=r"use http://127\.0\.0\.1:<port>"):
        probe(aw.url).active_window()


@pytest.mark.parametrize("status", [302, 500, 503])
def test_other_statuses_are_probe_errors_and_redirects_are_not_followed(aw, status):
    aw.answer = lambda h: h.reply(status, {}, {"Location": "http://example.invalid/x"})
    with pytest.raises(ProbeError, match=f"HTTP {status}"):
        probe(aw.url).active_window()
    assert len(aw.paths) == 1


def test_an_answer_over_the_cap_is_refused(aw):
    aw.answer = lambda h: h.reply(200, b"[" + b" " * (RESPONSE_CAP + 10) + b"]")
    with pytest.raises(ProbeError, match="more than 256 KiB"):
        probe(aw.url).active_window()


def test_a_server_that_drips_its_answer_is_cut_off(aw):
    def drip(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        for _ in range(200):  # one byte every 0.1 s: each read succeeds, the whole never ends
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.1)

    aw.answer = drip
    started = time.monotonic()
    with pytest.raises(ProbeError, match="did not answer within 0.5 s"):
        probe(aw.url, timeout=0.5).active_window()
    assert time.monotonic() - started < 10


def test_a_server_that_never_answers_is_a_timeout(aw):
    aw.answer = lambda h: time.sleep(5)
    with pytest.raises(ProbeError, match="did not answer within 0.5 s"):
        probe(aw.url, timeout=0.5).active_window()


def test_nothing_listening_is_a_clear_probe_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"  # bound, not listening: refused
        with pytest.raises(ProbeError, match=f"does not answer at {url}"):
            probe(url).active_window()
        assert probe(url).answers() is False


def test_proxy_settings_never_take_a_loopback_read_elsewhere(aw, monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # the discard port: nothing there
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    assert probe(aw.url).active_window() == ("Firefox", "Inbox")


def test_answers_checks_the_info_endpoint(aw):
    aw.answer = lambda h: h.reply(200, {"hostname": "vm", "testing": True})
    assert probe(aw.url).answers() is True
    assert aw.paths == ["/api/0/info"]
