"""The 15/25/50 buttons beside Minutes (POST /planning/minutes): the draft takes the minutes
and the input comes back holding them, focused; a bad value is a sentence, nothing changed."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.web import HX, state, to


def test_the_planning_form_offers_15_25_and_50(client):
    to(client, "planning")
    doc = parse(client.get("/").get_data(as_text=True))
    picks = [
        b.text().strip() for b in doc.find_all("button") if b.get("hx-post") == "/planning/minutes"
    ]
    assert picks == ["15", "25", "50"]


def test_a_pick_sets_the_drafts_minutes_and_the_input(client):
    to(client, "planning")
    response = client.post("/planning/minutes", data={"timebox_minutes": "50"}, headers=HX)
    assert response.status_code == 200
    field, version = parse(response.get_data(as_text=True)).find_all("input")
    assert version.id == "draft_version"  # the page's draft version moves on with it
    assert (field.id, field.value(), field.get("hx-swap-oob")) == ("timebox_minutes", "50", "true")
    assert "autofocus" in field.attrs
    assert state(client)["draft"]["timebox_minutes"] == "50"
    assert "timebox_minutes" in state(client)["draft"]["edited"]
    body = client.post("/planning/minutes", json={"timebox_minutes": 15}).get_json()
    assert body["draft"]["timebox_minutes"] == "15"


@pytest.mark.parametrize("bad", ["", "0", "481", "ten", None])
def test_a_bad_pick_is_a_sentence_and_changes_nothing(client, bad):
    to(client, "planning")
    before = state(client)["draft"]
    response = client.post("/planning/minutes", json={"timebox_minutes": bad})
    assert (
        response.status_code == 400
        and "Minutes must be a whole number" in response.get_json()["error"]
    )
    assert state(client)["draft"] == before


def test_a_pick_outside_planning_is_409(client):
    to(client, "locked")
    for value in ("25", "ten"):  # the state first: 409, not "fix your body"
        response = client.post("/planning/minutes", data={"timebox_minutes": value})
        assert response.status_code == 409
