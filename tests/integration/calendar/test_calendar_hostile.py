"""A hostile calendar, as a publisher or a local program could make one (issue 41): a rule that
repeats every second since 2000, BY-lists that expand to hundreds of thousands, more
occurrences than anyone plans around, bytes that are no UTF-8, a parser's error quoting the
file, a server that trickles its headers or redirects elsewhere. Each ends in time, in a
bounded process, with a line that quotes nothing of the file; the server never holds it."""

from __future__ import annotations

import functools
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from antidrift import process
from antidrift.calendar import Calendar, FetchFailed, UnreadableCalendar, parse
from antidrift.calendar.expand import expand
from antidrift.calendar.fetch import fetch
from antidrift.calendar.ics import MAX_OCCURRENCES, decode
from tests.fakes import FakeClock
from tests.support.calendar_standin import elapsed
from tests.support.ics import calendar, event, write

NOW = datetime(2026, 3, 2, 13, 20, tzinfo=UTC)
SPAN = (NOW - timedelta(days=1), NOW + timedelta(days=2))

EVERY_SECOND = calendar(
    event("bomb@x", "Bomb", datetime(2000, 1, 1, tzinfo=UTC), None, "RRULE:FREQ=SECONDLY")
).encode()
EVERY_SECOND_NEARBY = calendar(
    event("n@x", "Tick", NOW - timedelta(days=1), None, "RRULE:FREQ=SECONDLY")
)
# BY-lists: every second of every minute of every hour of every day of the window.
BY_LISTS = calendar(
    event(
        "by@x", "By", NOW - timedelta(days=1), None,
        "RRULE:FREQ=DAILY;BYHOUR=" + ",".join(map(str, range(24)))
        + ";BYMINUTE=" + ",".join(map(str, range(60)))
        + ";BYSECOND=" + ",".join(map(str, range(60))),
    )
)  # fmt: skip


def test_a_rule_every_second_since_2000_ends_at_the_deadline_in_a_child(tmp_path):
    result, took = elapsed(lambda: expand(EVERY_SECOND, *SPAN, deadline=1.0))
    assert isinstance(result, UnreadableCalendar), result
    assert "longer than 1 s" in result.message and took < 3


def test_the_child_is_stopped_by_its_cpu_limit_too():
    result, took = elapsed(lambda: expand(EVERY_SECOND, *SPAN, deadline=30, cpu_secs=1))
    assert isinstance(result, UnreadableCalendar), result
    assert "more than 1 s of work" in result.message and took < 10


def test_by_lists_that_expand_without_end_are_cut_short_and_said_so():
    found = expand(BY_LISTS.encode(), *SPAN, deadline=30, limit=300)
    assert found.cut and len(found.events) <= 300
    nearby = expand(EVERY_SECOND_NEARBY.encode(), *SPAN, deadline=30, limit=300)
    assert nearby.cut and len(nearby.events) == 300


def test_the_calendars_line_says_it_was_cut_short(tmp_path):
    kept = Calendar(tmp_path / "cache", FakeClock(NOW))
    path = tmp_path / "tick.ics"
    path.write_text(EVERY_SECOND_NEARBY, encoding="utf-8", newline="")
    kept.configure(parse(str(path)))
    kept.refresh()
    problem = kept.agenda(NOW).problem
    assert f"more than {MAX_OCCURRENCES:,} events" in problem and "left out" in problem


def test_a_child_short_of_memory_is_a_sentence_not_a_crash():
    # Hundreds of thousands of extra dates, in an address space too small to hold them.
    dates = ",".join(
        (NOW + timedelta(minutes=i)).strftime("%Y%m%dT%H%M%SZ") for i in range(200_000)
    )
    data = calendar(event("r@x", "Dates", NOW, None, f"RDATE:{dates}")).encode()
    with pytest.raises(UnreadableCalendar, match="more memory"):
        expand(data, *SPAN, deadline=30, memory=100 << 20)


def test_a_parsers_error_quotes_nothing_of_the_file():
    secret = "hunter2-secret-line"
    data = f"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:{secret}\r\nEND:VEVENT\r\n".encode()
    with pytest.raises(UnreadableCalendar) as caught:
        expand(data + b"END:VCALENDAR\r\n", *SPAN, deadline=30)
    assert secret not in caught.value.message


def test_a_bad_byte_keeps_every_other_character():
    text = calendar(event("u@x", "Café réunion", NOW + timedelta(hours=1)))
    data = text.encode().replace(b"DTSTAMP", b"X-JUNK:\xff\xfe\r\nDTSTAMP")
    assert "\ufffd" in decode(data)
    found = expand(data, *SPAN, deadline=30)
    assert [e.title for e in found.events] == ["Café réunion"]


def test_a_calendar_removed_in_settings_stops_its_reading_at_once(tmp_path):
    path = tmp_path / "bomb.ics"
    path.write_bytes(EVERY_SECOND)
    kept = Calendar(tmp_path / "cache", FakeClock(NOW), deadline=30)
    kept.configure(parse(str(path)))
    passing = threading.Thread(target=kept.refresh)
    passing.start()
    deadline = time.monotonic() + 5
    while not kept._reading and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # the child is at work
    stopped = time.monotonic()
    kept.configure(parse(""))
    passing.join(5)
    assert not passing.is_alive() and time.monotonic() - stopped < 2
    assert process.kill_all_running() == 0  # no child left behind
    assert kept.agenda(NOW).problem is None


def test_one_slow_calendar_never_delays_another(tmp_path, calendar_server):
    good = write(tmp_path / "work.ics", event("s@x", "Standup", NOW + timedelta(minutes=40)))
    get = functools.partial(fetch, timeout=5.0, context=calendar_server.client_context())
    kept = Calendar(tmp_path / "cache", FakeClock(NOW), fetcher=get)
    kept.configure(parse(f"{calendar_server.url('/hang.ics')},{good}"))
    unfinished, took = elapsed(lambda: kept.refresh(wait=1))
    assert [s.label for s in unfinished] == ["127.0.0.1"] and took < 2
    assert kept.agenda(NOW).next.title == "Standup"
    kept.stop()


def test_doctor_ends_in_time_whatever_a_calendar_does(tmp_path, calendar_server):
    get = functools.partial(fetch, timeout=0.5, context=calendar_server.client_context())
    kept = Calendar(tmp_path / "cache", FakeClock(NOW), fetcher=get, deadline=0.5)
    kept.configure(parse(calendar_server.url("/hang.ics")))
    lines, took = elapsed(kept.doctor_lines)
    assert took < 2.5 and "127.0.0.1" in lines[1]


def test_headers_that_trickle_are_given_up_on_at_the_whole_fetchs_time(calendar_server):
    get = functools.partial(fetch, timeout=1.0, context=calendar_server.client_context())
    result, took = elapsed(lambda: get(calendar_server.url("/slow-headers.ics")))
    assert isinstance(result, FetchFailed) and "longer than 1 s" in str(result)
    assert took < 1.5


@pytest.mark.parametrize("path", ["/elsewhere.ics", "/to-localhost.ics"])
def test_a_redirect_to_another_server_is_never_followed(calendar_server, path):
    calendar_server.files["/cal.ics"] = calendar(event("s@x", "Standup", NOW)).encode()
    get = functools.partial(fetch, timeout=2.0, context=calendar_server.client_context())
    with pytest.raises(FetchFailed, match="redirects to another server"):
        get(calendar_server.url(path))
    assert calendar_server.requests == [path]


def test_a_fetch_is_stopped_at_once_by_its_scope(calendar_server):
    scope = process.CancelScope()
    get = functools.partial(fetch, timeout=10.0, context=calendar_server.client_context())
    threading.Timer(0.3, scope.cancel).start()
    result, took = elapsed(lambda: get(calendar_server.url("/hang.ics"), scope=scope))
    assert isinstance(result, process.RunCancelled) and took < 1.5


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/short.ics", "its server stopped before the end of it"),
        ("/not-http.ics", "its server's answer is not HTTP"),
        ("/to-odd-http.ics", "redirects to a plain http address at another address"),
    ],
)
def test_an_answer_cut_short_or_not_http_is_a_sentence_quoting_nothing(calendar_server, path, said):
    get = functools.partial(fetch, timeout=2.0, context=calendar_server.client_context())
    with pytest.raises(FetchFailed) as caught:
        get(calendar_server.url(path))
    assert said in caught.value.message and "\x07" not in caught.value.message
