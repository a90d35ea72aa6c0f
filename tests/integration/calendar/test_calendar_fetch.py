"""A calendar URL over real HTTPS: bounded in time and size, https all the way, the last
good copy kept and shown when the server fails; never a traceback."""

from __future__ import annotations

import functools
import http.server
import threading
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.calendar import Calendar, FetchFailed, parse
from antidrift.calendar.fetch import MAX_BYTES, TIMEOUT, fetch
from tests.fakes import FakeClock, wait_until
from tests.support.calendar_standin import elapsed
from tests.support.ics import calendar, event

NOW = datetime(2026, 3, 2, 13, 20, tzinfo=UTC)
STANDUP = event("s@x", "Team standup", NOW + timedelta(minutes=40), None, minutes=15)


def test_the_bounds_are_five_seconds_and_five_megabytes():
    assert (TIMEOUT, MAX_BYTES) == (5.0, 5 * 1024 * 1024)


def test_a_good_calendar_is_fetched(calendar_server):
    calendar_server.files["/cal.ics"] = calendar(STANDUP).encode()
    body = fetch(calendar_server.url("/cal.ics"), context=calendar_server.client_context())
    assert b"Team standup" in body


def test_a_slow_server_is_given_up_on_within_the_time(calendar_server):
    get = functools.partial(fetch, timeout=1.0, context=calendar_server.client_context())
    for path in ("/slow.ics", "/hang.ics"):  # a trickle, and silence after the request
        result, took = elapsed(lambda p=path: get(calendar_server.url(p)))
        assert isinstance(result, FetchFailed) and "longer than 1 s" in str(result), path
        assert took < 2.0, (path, took)


def test_a_server_that_stalls_mid_body_is_given_up_on_at_the_whole_fetchs_time(calendar_server):
    # A line at once, another 0.7 s on, then silence: each read waits only what is left of
    # the one second, never a second more from the last byte.
    get = functools.partial(fetch, timeout=1.0, context=calendar_server.client_context())
    result, took = elapsed(lambda: get(calendar_server.url("/stall.ics")))
    assert isinstance(result, FetchFailed) and "longer than 1 s" in str(result)
    assert took < 1.4, took


def test_a_calendar_over_the_size_is_refused(calendar_server):
    result, _ = elapsed(
        lambda: fetch(calendar_server.url("/big.ics"), context=calendar_server.client_context())
    )
    assert isinstance(result, FetchFailed) and "larger than 5 MB" in str(result)


def test_a_redirect_to_plain_http_is_not_followed(calendar_server):
    calendar_server.files["/cal.ics"] = calendar(STANDUP).encode()
    get = functools.partial(fetch, context=calendar_server.client_context())
    assert b"Team standup" in get(calendar_server.url("/to-https.ics"))
    before = len(calendar_server.requests)
    with pytest.raises(FetchFailed, match="redirects to a plain http address at 127.0.0.1"):
        get(calendar_server.url("/to-http.ics"))
    assert calendar_server.requests[before:] == ["/to-http.ics"]  # the http one never asked


def test_an_untrusted_certificate_and_an_error_answer_are_sentences(calendar_server):
    with pytest.raises(FetchFailed, match="certificate is not trusted"):
        fetch(calendar_server.url("/cal.ics"))  # the stand-in's certificate is nobody's CA
    with pytest.raises(FetchFailed, match="answered 404"):
        fetch(calendar_server.url("/gone.ics"), context=calendar_server.client_context())


def test_plain_http_is_never_asked():
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            asked.append(self.path)

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    try:
        with pytest.raises(FetchFailed, match="only https"):
            fetch(f"http://127.0.0.1:{server.server_port}/cal.ics")
    finally:
        server.server_close()
    assert asked == []


def keeper(tmp_path, server, clock, path="/cal.ics"):
    get = functools.partial(fetch, timeout=1.0, context=server.client_context())
    kept = Calendar(tmp_path / "calendar", clock, fetcher=get)
    kept.configure(parse(server.url(path)))
    return kept


def test_the_last_good_copy_is_kept_and_shown_when_the_server_fails(tmp_path, calendar_server):
    clock = FakeClock(NOW)
    calendar_server.files["/cal.ics"] = calendar(STANDUP).encode()
    kept = keeper(tmp_path, calendar_server, clock)
    kept.refresh()
    agenda = kept.agenda(clock.now())
    assert agenda.next.title == "Team standup" and agenda.problem is None
    # The server goes away; fifteen minutes on the refresh fails and says so, once, quietly.
    del calendar_server.files["/cal.ics"]
    clock.advance(15 * 60)
    kept.refresh()
    agenda = kept.agenda(clock.now())
    assert agenda.next.title == "Team standup"
    assert agenda.problem.startswith("Calendar at 127.0.0.1 could not be read: the server")
    assert "showing the copy from" in agenda.problem
    assert "/cal.ics" not in agenda.problem  # never the address's path: it may be its key
    # A new server process (a restart) starts from the copy in the data directory.
    again = keeper(tmp_path, calendar_server, clock)
    again.refresh()
    assert again.agenda(clock.now()).next.title == "Team standup"


def test_at_start_the_last_good_copy_is_shown_before_the_fetch_ends(tmp_path, calendar_server):
    clock = FakeClock(NOW)
    calendar_server.files["/cal.ics"] = calendar(STANDUP).encode()
    keeper(tmp_path, calendar_server, clock).refresh()  # a run before kept its copy
    held, asked = threading.Event(), threading.Event()

    def slow(url: str, scope=None) -> bytes:
        asked.set()
        held.wait(5)
        raise FetchFailed("it took longer than 5 s")

    again = Calendar(tmp_path / "calendar", clock, fetcher=slow)
    again.configure(parse(calendar_server.url("/cal.ics")))
    again.start()
    try:
        assert asked.wait(5)
        wait_until(lambda: again.agenda(clock.now()).next is not None, timeout=2)
        assert again.agenda(clock.now()).next.title == "Team standup"
    finally:
        held.set()
        again.stop(timeout=3)


def test_a_url_is_fetched_every_fifteen_minutes_and_at_once_on_a_save(tmp_path, calendar_server):
    clock = FakeClock(NOW)
    calendar_server.files["/cal.ics"] = calendar(STANDUP).encode()
    kept = keeper(tmp_path, calendar_server, clock)
    kept.refresh()
    kept.refresh()
    clock.advance(14 * 60)
    kept.refresh()
    assert calendar_server.requests == ["/cal.ics"]
    clock.advance(60)
    kept.refresh()
    assert calendar_server.requests == ["/cal.ics"] * 2
    kept.configure(parse(calendar_server.url("/cal.ics")))  # the Settings page saved
    kept.refresh()
    assert calendar_server.requests == ["/cal.ics"] * 3


def test_a_slow_server_never_holds_a_page(tmp_path, calendar_server):
    clock = FakeClock(NOW)
    kept = keeper(tmp_path, calendar_server, clock, "/hang.ics")
    kept.start()
    try:
        _, took = elapsed(lambda: kept.agenda(clock.now()))
        assert took < 0.1
    finally:
        kept.stop(timeout=3)
