"""POST /drift/ack, the drift object in /state and the drift figures in /history."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.drift.policy import DriftSettings
from tests.fakes import RecordingNotifier, wait_until
from tests.support.plans import PLAN
from tests.support.walk import client_post, walk_http

NOW = DriftSettings(timedelta(0), timedelta(0), 30)


@pytest.fixture
def drift_client(make_controller, make_app, judge):
    controller = make_controller(judge=judge, drift=NOW, notifier=RecordingNotifier())
    return controller, make_app(controller).test_client()


def test_state_has_drift_only_while_active(drift_client):
    controller, client = drift_client
    assert "drift" not in client.get("/state").get_json()
    walk_http(client_post(client), "active", **PLAN)
    drift = client.get("/state").get_json()["drift"]
    assert drift == {"status": "unknown", "since": None, "reason": "no window seen yet"}
    client.post("/evidence/window", json={"app": "firefox", "title": "feed"})
    wait_until(lambda: client.get("/state").get_json()["drift"]["status"] == "drifting")
    drift = client.get("/state").get_json()["drift"]
    assert drift["since"] is not None and "firefox" in drift["reason"]
    client.post("/finish")
    assert "drift" not in client.get("/state").get_json()


def test_ack_is_409_without_a_banner_and_400_for_an_unknown_answer(drift_client, store):
    controller, client = drift_client
    assert client.post("/drift/ack", json={"answer": "back"}).status_code == 409
    walk_http(client_post(client), "active", **PLAN)
    assert client.post("/drift/ack", json={"answer": "back"}).status_code == 409
    client.post("/evidence/window", json={"app": "firefox", "title": "feed"})
    wait_until(lambda: client.get("/state").get_json()["drift"]["status"] == "drifting")
    controller.drift_tick()
    before = dict(store.drift_episodes)
    response = client.post("/drift/ack", json={"answer": "snooze"})
    assert response.status_code == 400 and "back or on_task" in response.get_json()["error"]
    assert store.drift_episodes == before
    response = client.post("/drift/ack", data={"answer": "on_task"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert client.get("/state").get_json()["drift"]["status"] == "on_task"
    assert client.post("/drift/ack", json={"answer": "on_task"}).status_code == 409


def test_ack_from_another_site_is_refused(drift_client):
    controller, client = drift_client
    walk_http(client_post(client), "active", **PLAN)
    response = client.post(
        "/drift/ack", data={"answer": "back"}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403


def test_history_rows_carry_drift_count_and_on_task_share(drift_client, clock, judge):
    controller, client = drift_client
    walk_http(client_post(client), "active", **PLAN)
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    judge.wait_calls(1)
    clock.advance(30)
    client.post("/evidence/window", json={"app": "firefox", "title": "feed"})
    wait_until(lambda: client.get("/state").get_json()["drift"]["status"] == "drifting")
    controller.drift_tick()
    clock.advance(10)
    client.post("/finish")
    client.post("/end", json={"outcome": "met"})
    # Without any evidence: no share at all, not a made-up 0 or 1.
    clock.advance(60)
    walk_http(client_post(client), "active", **PLAN)
    client.post("/finish")
    client.post("/end", json={"outcome": "missed"})
    empty, judged = client.get("/history").get_json()
    assert (judged["drift_count"], judged["on_task_share"]) == (1, 0.75)
    assert (empty["drift_count"], empty["on_task_share"]) == (0, None)
