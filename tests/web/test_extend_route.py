"""POST /extend through Flask's test client: 200 and the moved deadline, 409, 400."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tests.fakes import START
from tests.support.web import HX, state, to


def test_extend_while_active_moves_the_deadline_in_state(client, clock):
    to(client, "active")
    response = client.post("/extend", json={"minutes": 10})
    assert response.status_code == 200
    c = response.get_json()["commitment"]
    assert (c["timebox_secs"], c["extended_secs"]) == (1200, 600)
    assert datetime.fromisoformat(c["deadline"]) == START + timedelta(minutes=30)
    assert state(client)["commitment"]["extended_secs"] == 600


def test_extend_from_the_page_answers_empty_for_htmx(client):
    to(client, "active")
    response = client.post("/extend", data={"minutes": "5"}, headers=HX)
    assert (response.status_code, response.data) == (200, b"")
    assert state(client)["commitment"]["extended_secs"] == 300


def test_extend_after_the_timebox_ran_out_reopens_it_and_history_keeps_the_total(
    client, clock, controller
):
    to(client, "active")
    clock.advance(20 * 60)
    controller.expire_if_due()
    assert state(client)["runtime_state"] == "review"
    assert client.post("/extend", json={"minutes": 5}).status_code == 200
    assert state(client)["runtime_state"] == "active"
    assert client.post("/finish").status_code == 200
    assert client.post("/end", json={"outcome": "met"}).status_code == 200
    [row] = client.get("/history").get_json()
    assert (row["timebox_secs"], row["extended_secs"]) == (1200, 300)


@pytest.mark.parametrize("where", ["locked", "planning", "review"])
def test_extend_where_it_does_not_apply_is_409(client, where):
    to(client, where)  # review here was reached by Finish, not by the timebox
    response = client.post("/extend", json={"minutes": 5})
    assert response.status_code == 409
    assert "error" in response.get_json()
    assert state(client)["runtime_state"] == where


@pytest.mark.parametrize("minutes", [0, 121, "x", None, -1])
def test_extend_with_bad_minutes_is_400_with_a_message(client, minutes):
    to(client, "active")
    response = client.post("/extend", json={"minutes": minutes})
    assert response.status_code == 400
    assert "1 to 120" in response.get_json()["error"]
    assert state(client)["commitment"]["extended_secs"] == 0


def test_extend_past_480_minutes_in_all_is_400(client):
    to(client, "planning")
    plan = {"next_action": "a", "success_condition": "b", "timebox_minutes": "470"}
    assert client.post("/commitment", data=plan).status_code == 200
    response = client.post("/extend", json={"minutes": 11})
    assert response.status_code == 400
    assert "480" in response.get_json()["error"]
    assert client.post("/extend", json={"minutes": 10}).status_code == 200
