"""The calendar on the pages: the next event and its free minutes while planning, the clash
while active, "in 5 min" once, and a calendar that cannot be read as one quiet line."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.calendar import Calendar, parse
from antidrift.drift.window_key import is_own_page
from tests.fakes import START
from tests.support.html import parse as html
from tests.support.ics import event, write
from tests.support.plans import PLAN
from tests.support.web import HX, state, to

STANDUP_AT = START + timedelta(minutes=40)
HHMM = STANDUP_AT.astimezone().strftime("%H:%M")


@pytest.fixture
def agenda(tmp_path, clock):
    # Half an hour: a 60-minute timebox ends 20 minutes into it, a 90-minute one outlasts it.
    path = write(tmp_path / "work.ics", event("s@x", "Team standup", STANDUP_AT, None, minutes=30))
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(path)))
    kept.refresh()
    return kept


@pytest.fixture
def client(make_app, make_controller, fake_coach, agenda):
    return make_app(make_controller(fake_coach, calendar=agenda), fake_coach).test_client()


def page(client):
    response = client.get("/")
    assert response.status_code == 200
    return html(response.get_data(as_text=True))


def test_planning_names_the_next_event_and_offers_its_free_minutes(client):
    to(client, "planning")
    doc = page(client)
    assert doc.by_id("next-event").text() == f"Team standup at {HHMM} — 40 min free"
    assert "hidden" not in doc.by_id("next-event").attrs
    assert doc.by_id("timebox_minutes").get("list") == "free-minutes"
    [offer] = doc.by_id("free-minutes").find_all("option")
    assert offer.get("value") == "40"


def test_a_timebox_past_the_event_is_accepted_and_the_active_view_names_the_clash(client):
    to(client, "planning")
    response = client.post("/commitment", data={**PLAN, "timebox_minutes": "60"}, headers=HX)
    assert response.status_code == 200 and state(client)["runtime_state"] == "active"
    clash = page(client).by_id("event-clash")
    assert clash.text() == f"This timebox ends 20 min into Team standup ({HHMM})."


def test_a_timebox_that_outlasts_the_event_says_it_runs_through_it_not_minutes_into_it(client):
    """A 30-minute standup 40 minutes away and a 90-minute timebox: it does not end "50 min
    into Team standup", which is over by then."""
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "90"}, headers=HX)
    ends = (STANDUP_AT + timedelta(minutes=30)).astimezone().strftime("%H:%M")
    clash = page(client).by_id("event-clash")
    assert clash.text() == f"This timebox runs through Team standup ({HHMM}–{ends})."


def test_a_timebox_that_ends_before_the_event_names_no_clash(client):
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "40"})
    clash = page(client).by_id("event-clash")
    assert "hidden" in clash.attrs and clash.text() == ""


def test_five_minutes_before_the_event_the_title_and_the_live_region_say_so(client, clock):
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "60"})
    clock.set(STANDUP_AT - timedelta(minutes=5))
    doc = page(client)
    assert doc.by_id("announce").text() == "Team standup in 5 min."
    title = doc.find_all("title")[0].text()
    assert title.startswith("Team standup in 5 min · ")
    assert is_own_page(title, PLAN["next_action"])  # the guard still knows its own page
    clock.advance(61)  # said once: a minute later it is gone
    doc = page(client)
    assert doc.by_id("announce").text() == ""
    assert "in 5 min" not in doc.find_all("title")[0].text()


def test_a_timebox_that_ends_as_the_event_starts_says_both_in_the_same_minute(client, clock):
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "40"})
    clock.set(STANDUP_AT - timedelta(minutes=5))
    assert page(client).by_id("announce").text() == "5 minutes left. Team standup in 5 min."


def test_during_the_event_the_state_names_it(client, clock):
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "60"})
    clock.set(STANDUP_AT + timedelta(minutes=1))
    assert state(client)["calendar"]["now"]["title"] == "Team standup"


def test_a_calendar_that_cannot_be_read_is_one_quiet_line_never_an_error(
    make_app, make_controller, fake_coach, clock, tmp_path
):
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(tmp_path / "gone.ics")))
    kept.refresh()
    client = make_app(make_controller(fake_coach, calendar=kept), fake_coach).test_client()
    to(client, "planning")
    line = page(client).by_id("next-event")
    assert line.text() == "Calendar file gone.ics cannot be read (no such file or directory)."
    assert state(client)["calendar"] == {"now": None, "next": None}


def test_without_a_calendar_planning_shows_no_line(make_app, make_controller, fake_coach):
    client = make_app(make_controller(fake_coach), fake_coach).test_client()
    to(client, "planning")
    line = page(client).by_id("next-event")
    assert "hidden" in line.attrs and line.text() == ""


# -- meetings on the page (the page 0.6, item 3) -------------------------------------------------


def test_before_start_planning_says_the_minutes_typed_run_into_the_next_event(client):
    to(client, "planning")
    client.post("/planning/draft", data={"timebox_minutes": "50"}, headers=HX)
    said = page(client).by_id("plan-clash")
    assert said.text() == f"50 min would run 10 min into Team standup at {HHMM}."
    client.post("/planning/draft", data={"timebox_minutes": "40"}, headers=HX)
    assert page(client).by_id("plan-clash") is None  # ends as it starts: no clash
    client.post("/planning/draft", data={"timebox_minutes": "soon"}, headers=HX)
    assert page(client).by_id("plan-clash") is None  # not minutes yet: nothing to say


def test_during_an_event_planning_shows_it_and_the_next_one(
    tmp_path, make_app, make_controller, fake_coach, clock
):
    path = write(
        tmp_path / "day.ics",
        event("r@x", "Design review", START - timedelta(minutes=10), None, minutes=30),
        event("s@x", "Team standup", STANDUP_AT, None, minutes=30),
    )
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(path)))
    kept.refresh()
    client = make_app(make_controller(fake_coach, calendar=kept), fake_coach).test_client()
    to(client, "planning")
    line = page(client).by_id("next-event")
    until = (START + timedelta(minutes=20)).astimezone().strftime("%H:%M")
    assert line.find_all("span", class_="event-now")[0].text() == f"In Design review until {until}"
    assert f"Next: Team standup at {HHMM}" in line.text()


def test_the_meeting_shows_five_minutes_before_and_offers_pause_for_it_during(client, clock):
    to(client, "planning")
    client.post("/commitment", data={**PLAN, "timebox_minutes": "60"})
    meeting = page(client).by_id("meeting")
    assert "hidden" in meeting.attrs  # 40 minutes away: not yet
    clock.advance(36 * 60)
    meeting = page(client).by_id("meeting")
    assert "hidden" not in meeting.attrs
    assert meeting.text().strip() == f"Team standup at {HHMM}, in 4 min."
    clock.advance(5 * 60)  # a minute into it: named, with Pause for it, the guard standing down
    doc = page(client)
    assert "In Team standup until" in doc.by_id("meeting").text()
    [pause] = doc.by_id("meeting").find_all("button")
    assert pause.text().strip() == "Pause for it" and pause.get("hx-post") == "/pause"
    assert client.post("/pause", headers=HX).status_code == 200
    meeting = page(client).by_id("meeting")
    assert not meeting.find_all("button") and "Paused for it" in meeting.text()


def test_the_drift_guard_names_the_event_it_stands_down_for(app):
    from antidrift.calendar.agenda import Event
    from antidrift.drift.policy import DriftStatus
    from antidrift.session.snapshot import DriftInfo
    from antidrift.web.widgets import DriftGuardWidget

    standup = Event(STANDUP_AT, STANDUP_AT + timedelta(minutes=30), "Team standup")
    ends = standup.ends_at.astimezone().strftime("%H:%M")
    on = DriftInfo(True, "claude")
    guard = DriftGuardWidget(DriftStatus.EVENT, "a calendar event is under way", on, event=standup)
    said = " ".join(html(app.extensions["antidrift.renderer"].widget(guard)).text().split())
    assert said == f"Drift guard waiting: no window is judged during Team standup (until {ends})."
