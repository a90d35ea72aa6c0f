"""Driving the app through Flask's test client: the htmx header, a plan, /state, a state."""

from __future__ import annotations

from tests.support.plans import PLAN

HX = {"HX-Request": "true"}  # what the page's htmx sends with every request


def state(client) -> dict:
    """GET /state, which must answer 200 with JSON."""
    response = client.get("/state")
    assert response.status_code == 200 and response.is_json
    return response.get_json()


def to(client, target: str) -> None:
    """Walk the app from locked to target (locked, planning, active or review) through its
    routes, as a JSON-less form client would."""
    steps = {
        "locked": [],
        "planning": [("/planning", None)],
        "active": [("/planning", None), ("/commitment", PLAN)],
        "review": [("/planning", None), ("/commitment", PLAN), ("/finish", None)],
    }[target]
    for path, data in steps:
        assert client.post(path, data=data or {}).status_code == 200
    assert state(client)["runtime_state"] == target


def commit(client, clock, outcome: str, action: str = "Write the intro") -> str:
    """A 25-minute commitment on `action`, ten minutes on the clock, ended with `outcome`;
    its id."""
    client.post("/planning")
    plan = {"next_action": action, "success_condition": "Intro in the doc", "timebox_minutes": 25}
    cid = client.post("/commitment", json=plan).get_json()["commitment"]["id"]
    clock.advance(600)
    client.post("/finish")
    assert client.post("/end", json={"outcome": outcome}).status_code == 200
    return cid
