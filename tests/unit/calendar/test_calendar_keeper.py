"""Local calendar files: re-read when their mtime changes (a vdirsyncer sync, a new export),
said in one quiet line when they cannot be read; the agenda's now, next and free minutes."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.calendar import Calendar, parse
from antidrift.calendar.fetch import MAX_BYTES
from tests.fakes import FakeClock
from tests.support.ics import event, write

NOW = datetime(2026, 3, 2, 13, 20, tzinfo=UTC)


def keeper(tmp_path, *paths, clock=None):
    kept = Calendar(tmp_path / "cache", clock or FakeClock(NOW))
    kept.configure(parse(",".join(str(p) for p in paths)))
    return kept


def test_the_next_event_and_the_free_minutes_before_it(tmp_path):
    path = write(
        tmp_path / "work.ics",
        event("a@x", "Earlier", NOW - timedelta(hours=2)),
        event("b@x", "Team standup", NOW + timedelta(minutes=40), None, minutes=15),
        event("c@x", "Lunch", NOW + timedelta(hours=2)),
    )
    kept = keeper(tmp_path, path)
    kept.refresh()
    agenda = kept.agenda(NOW)
    assert (agenda.now, agenda.next.title) == (None, "Team standup")
    assert (agenda.free_minutes(NOW), agenda.in_minutes(NOW)) == (40, 40)
    # One rule, one number: "in 39 min" beside "39 min free" at 39.5 minutes.
    assert agenda.in_minutes(NOW + timedelta(seconds=30)) == 39
    assert agenda.free_minutes(NOW + timedelta(seconds=30)) == 39
    # A timebox of 60 minutes ends 20 minutes into the standup (in seconds); one of 40 does not.
    assert agenda.clash(NOW + timedelta(minutes=60), NOW)[1] == 20 * 60  # seconds
    assert agenda.clash(NOW + timedelta(minutes=40), NOW) is None
    during = kept.agenda(NOW + timedelta(minutes=45))
    assert during.now.title == "Team standup" and during.next.title == "Lunch"
    assert kept.busy(NOW + timedelta(minutes=45)) and not kept.busy(NOW)


def test_a_local_file_is_read_again_when_its_mtime_changes(tmp_path):
    clock = FakeClock(NOW)
    path = write(tmp_path / "work.ics", event("b@x", "Standup", NOW + timedelta(minutes=40)))
    kept = keeper(tmp_path, path, clock=clock)
    kept.refresh()
    assert kept.agenda(NOW).next.title == "Standup"
    write(tmp_path / "work.ics", event("b@x", "Retro", NOW + timedelta(minutes=40)))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    clock.advance(30)  # the refresher's next look; far from fifteen minutes
    kept.refresh()
    assert kept.agenda(clock.now()).next.title == "Retro"


def test_tomorrow_counts_and_the_day_after_does_not(tmp_path):
    local = NOW.astimezone()
    tomorrow = (local + timedelta(days=1)).replace(hour=10, minute=0)
    after = (local + timedelta(days=2)).replace(hour=10, minute=0)
    path = write(tmp_path / "w.ics", event("t@x", "Tomorrow", tomorrow))
    kept = keeper(tmp_path, path)
    kept.refresh()
    assert kept.agenda(NOW).next.title == "Tomorrow"
    write(path, event("t@x", "Later", after))
    kept.configure(parse(str(path)))
    kept.refresh()
    assert kept.agenda(NOW).next is None


def test_a_missing_or_broken_file_is_one_quiet_line_and_the_others_still_count(tmp_path):
    good = write(tmp_path / "good.ics", event("b@x", "Standup", NOW + timedelta(minutes=40)))
    broken = tmp_path / "broken.ics"
    broken.write_text("<html>not a calendar</html>")
    kept = keeper(tmp_path, tmp_path / "gone.ics", broken, good)
    kept.refresh()
    agenda = kept.agenda(NOW)
    assert agenda.next.title == "Standup"
    assert "Calendar file gone.ics cannot be read (no such file or directory)." in agenda.problem
    assert "Calendar file broken.ics: it is not an iCalendar file" in agenda.problem
    assert "\n" not in agenda.problem


def test_an_event_in_two_calendars_counts_once(tmp_path):
    same = event("b@x", "Standup", NOW + timedelta(minutes=40))
    one, two = write(tmp_path / "a.ics", same), write(tmp_path / "b.ics", same)
    kept = keeper(tmp_path, one, two)
    kept.refresh()
    assert len(kept._events) == 1


def test_no_calendar_no_agenda(tmp_path):
    kept = Calendar(tmp_path, FakeClock(NOW))
    kept.refresh()
    agenda = kept.agenda(NOW)
    assert (agenda.now, agenda.next, agenda.problem, kept.configured) == (None, None, None, False)


def test_no_thread_waits_while_no_calendar_is_set_and_one_reads_the_first(tmp_path):
    """Started with no calendar (issue 40: the footprint), the keeper runs no thread; the
    first calendar the Settings page sets starts it, and it reads at once."""
    others = set(threading.enumerate())  # another test's keeper, still stopping

    def refreshers() -> list[threading.Thread]:
        return [
            t for t in threading.enumerate() if t.name == "antidrift-calendar" and t not in others
        ]

    kept = Calendar(tmp_path / "cache", FakeClock(NOW))
    kept.start()
    assert refreshers() == []
    path = write(tmp_path / "work.ics", event("b@x", "Standup", NOW + timedelta(minutes=40)))
    kept.configure(parse(str(path)))
    try:
        assert len(refreshers()) == 1
        for _ in range(500):  # the child process that reads it: well under a second
            if kept.agenda(NOW).next is not None:
                break
            threading.Event().wait(0.01)
        assert kept.agenda(NOW).next.title == "Standup"
    finally:
        kept.stop()
    assert refreshers() == []
    kept.configure(parse(str(path)))  # stopped: nothing starts again
    assert refreshers() == []


def test_a_fifo_or_an_oversized_file_is_a_quiet_line_and_never_hangs_the_refresh(tmp_path):
    """A calendar path that is a FIFO (or a device) must not hang the refresher or `antidrift
    doctor` on open(); one bigger than a fetched calendar may be is not read into memory."""
    good = write(tmp_path / "good.ics", event("b@x", "Standup", NOW + timedelta(minutes=40)))
    fifo = tmp_path / "pipe.ics"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.ics"
    with open(huge, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no disk, no time
    kept = keeper(tmp_path, fifo, huge, good)
    refresher = threading.Thread(target=kept.refresh, daemon=True)
    refresher.start()
    refresher.join(5)
    if refresher.is_alive():  # blocked on the FIFO: a writer lets it go, then it fails
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        refresher.join(5)
        pytest.fail("the refresh hung on a FIFO named as a calendar")
    agenda = kept.agenda(NOW)
    assert agenda.next.title == "Standup"
    assert "Calendar file pipe.ics: it is not a regular file (a named pipe)." in agenda.problem
    assert "Calendar file huge.ics: it is larger than 5 MB." in agenda.problem


def test_doctor_counts_the_events_of_today_and_tomorrow_only(tmp_path):
    local = NOW.astimezone()
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    path = write(
        tmp_path / "work.ics",
        event("y@x", "Yesterday", midnight - timedelta(hours=3)),  # kept: a day either side
        event("a@x", "Today", midnight + timedelta(hours=9)),
        event("b@x", "Tomorrow", midnight + timedelta(days=1, hours=9)),
        event("c@x", "After", midnight + timedelta(days=2, hours=9)),
    )
    kept = keeper(tmp_path, path)
    assert kept.doctor_lines()[1].endswith("work.ics: 2 timed event(s) today and tomorrow")
