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
