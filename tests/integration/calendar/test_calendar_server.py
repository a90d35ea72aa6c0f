"""The calendar in a real runtime: the refresher thread started and stopped with it, a URL
over real HTTPS reaching /state, a save on the Settings page fetching again, a broken
calendar as one quiet line on the page and in doctor, the five-minute notification once."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.calendar import Calendar, parse
from antidrift.notify import Background
from antidrift.server import bootstrap
from antidrift.server.app import create_app
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import load
from tests.fakes import FakeClock, FakeStore, RecordingNotifier, wait_until
from tests.support.html import parse as html
from tests.support.ics import calendar, event, write
from tests.support.session import build_controller

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def refresher_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "antidrift-calendar"]


@pytest.fixture
def serve(tmp_path, fake_bin, calendar_server, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(calendar_server.cert))  # the stand-in's CA
    made = []

    def make(**env):
        settings = load(
            {"PATH": str(fake_bin.dir), "ANTIDRIFT_WINDOW_SOURCE": "off", **env},
            data_dir=tmp_path / "data",
        )
        runtime = bootstrap.build_runtime(settings)
        made.append(runtime)
        app = create_app(settings, runtime=runtime)
        app.config.update(TESTING=True)
        runtime.start()
        return app.test_client(), runtime

    yield make
    for runtime in made:
        runtime.stop()


def soon_event(minutes: int = 40) -> str:
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=minutes)
    return event("s@x", "Team standup", start, None, minutes=15)


def test_a_url_reaches_the_state_and_a_save_fetches_it_again(serve, calendar_server):
    calendar_server.files["/cal.ics"] = calendar(soon_event()).encode()
    url = calendar_server.url("/cal.ics")
    client, runtime = serve(ANTIDRIFT_CALENDAR="")
    assert refresher_threads() == []  # no calendar: no thread waits (issue 40)
    assert client.get("/state").get_json()["calendar"] == {"now": None, "next": None}
    answer = client.post("/settings", json={"calendar": url}, headers=HOST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert refresher_threads() == ["antidrift-calendar"]

    def upcoming():
        return client.get("/state").get_json()["calendar"]["next"]

    found = wait_until(upcoming, timeout=10)
    assert found["title"] == "Team standup" and found["in_minutes"] in (39, 40)
    assert calendar_server.requests == ["/cal.ics"]
    client.post("/settings", json={"calendar_email": "me@example.org"}, headers=HOST)
    wait_until(lambda: len(calendar_server.requests) == 2, timeout=10)
    runtime.stop()
    assert refresher_threads() == []


def test_a_broken_calendar_is_a_quiet_line_on_the_page_and_never_an_error(
    serve, calendar_server, tmp_path
):
    good = write(tmp_path / "work.ics", soon_event())
    client, _ = serve(ANTIDRIFT_CALENDAR=f"{calendar_server.url('/gone.ics')},{good}")
    client.post("/planning", headers=HOST)

    def line():
        response = client.get("/")
        assert response.status_code == 200
        text = html(response.get_data(as_text=True)).by_id("next-event").text()
        return text if "could not be read" in text and "Team standup" in text else None

    text = wait_until(line, timeout=10)  # each calendar is read apart: both in a moment
    assert text.startswith("Team standup at ")
    assert text.endswith("Calendar at 127.0.0.1 could not be read: the server answered 404.")


def test_doctor_says_what_each_calendar_gave(tmp_path, fake_bin, calendar_server):
    calendar_server.files["/cal.ics"] = calendar(soon_event()).encode()
    good = write(tmp_path / "work.ics", soon_event(), soon_event(90).replace("s@x", "t@x"))
    env = {
        "PATH": str(fake_bin.dir),
        "HOME": str(tmp_path),
        "ANTIDRIFT_DATA_DIR": str(tmp_path / "data"),
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "ANTIDRIFT_CALENDAR": ",".join(
            [calendar_server.url("/cal.ics"), calendar_server.url("/slow.ics"), str(good)]
        ),
        "SSL_CERT_FILE": str(calendar_server.cert),
        "PYTHONPATH": REPO,
        "ANTIDRIFT_READ_DEADLINE": "1",  # the setting tests shorten: the slow one ends at 1 s
    }
    calendar_server.trickle = 0.5
    done = subprocess.run(
        [sys.executable, "-m", "antidrift", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert "Traceback" not in done.stderr, done.stderr
    section = done.stdout.split("calendars (ANTIDRIFT_CALENDAR):", 1)[1]
    assert "  127.0.0.1: 1 timed event(s) today and tomorrow" in section
    assert (
        "  127.0.0.1: Calendar at 127.0.0.1 could not be read: it took longer than 1 s." in section
    )
    assert "  work.ics: 2 timed event(s) today and tomorrow" in section


def test_five_minutes_before_an_event_one_notification_while_a_commitment_runs(tmp_path):
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    clock, store = FakeClock(start), FakeStore()
    path = write(tmp_path / "w.ics", event("s@x", "Team standup", start + timedelta(minutes=40)))
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(path)))
    kept.refresh()
    recorder = RecordingNotifier()
    controller = build_controller(store, clock, calendar=kept)
    runtime = bootstrap.Runtime(
        controller, store, clock, CoachInfo(None), notifier=Background(recorder), calendar=kept
    )
    runtime.start()
    try:
        controller.enter_planning()
        controller.start_manual_commitment("Write the intro", "Two pages", 60)
        clock.set(start + timedelta(minutes=35))
        wait_until(lambda: recorder.shown, timeout=5)
        time.sleep(2.2)  # two more ticks inside the minute
        assert recorder.shown == [("Team standup in 5 min · AntiDrift", "Team standup")]
    finally:
        runtime.stop()
