"""GET /state as a conditional request that can wait (the command line's --follow):
a weak ETag, 304 when unchanged, a held request answered by the next change."""

from __future__ import annotations

import threading
import time

from antidrift.core.timing import LEFT_HEADER as LEFT
from tests.support.web import state, to


def tag(client) -> str:
    response = client.get("/state")
    assert response.status_code == 200
    return response.headers["ETag"]


def test_state_carries_an_etag_that_changes_with_the_state(client):
    locked = tag(client)
    assert locked.startswith('"') and locked.endswith('"')
    assert tag(client) == locked  # nothing changed
    to(client, "planning")
    assert tag(client) != locked


def test_an_unchanged_state_answers_304_without_a_body(client):
    known = tag(client)
    response = client.get("/state", headers={"If-None-Match": known})
    assert response.status_code == 304 and response.data == b""
    assert response.headers["ETag"] == known
    stale = client.get("/state", headers={"If-None-Match": 'W/"old"'})
    assert stale.status_code == 200 and stale.get_json()["runtime_state"] == "locked"


def test_the_countdown_alone_is_no_change(client, clock):
    to(client, "active")
    before = client.get("/state")
    clock.advance(7)
    after = client.get("/state")
    assert int(before.headers[LEFT]) - int(after.headers[LEFT]) == 7
    assert before.headers["ETag"] == after.headers["ETag"]
    assert before.data == after.data  # the body says nothing that ticks
    held = client.get("/state", headers={"If-None-Match": after.headers["ETag"]})
    assert held.status_code == 304 and held.headers[LEFT] == after.headers[LEFT]


def test_time_left_only_while_active_and_ran_out_in_the_commitment(client):
    assert LEFT not in client.get("/state").headers
    to(client, "active")
    response = client.get("/state")
    assert response.headers[LEFT] == str(20 * 60)
    assert "left_secs" not in response.get_json()
    assert response.get_json()["commitment"]["ran_out"] is False
    moved = client.post("/extend", json={"minutes": 5})  # a JSON client's move says it too
    assert moved.headers[LEFT] == str(25 * 60)
    assert client.post("/finish").status_code == 200
    assert LEFT not in client.get("/state").headers
    assert state(client)["commitment"]["ran_out"] is False  # finished by hand


def test_a_held_request_answers_with_the_change_that_ends_it(app):
    follower, actor = app.test_client(), app.test_client()
    known = tag(follower)
    answers = []

    def follow():
        answers.append(follower.get("/state?wait=30", headers={"If-None-Match": known}))

    thread = threading.Thread(target=follow)
    started = time.monotonic()
    thread.start()
    time.sleep(0.2)  # held: no answer yet, nothing changed
    assert answers == []
    assert actor.post("/planning").status_code == 200
    thread.join(10)
    assert time.monotonic() - started < 10
    (answer,) = answers
    assert answer.status_code == 200 and answer.get_json()["runtime_state"] == "planning"
    assert answer.headers["ETag"] != known


def test_a_held_request_gives_up_after_its_wait_with_304(client):
    known = tag(client)
    started = time.monotonic()
    response = client.get("/state?wait=0.3", headers={"If-None-Match": known})
    assert response.status_code == 304
    assert 0.25 <= time.monotonic() - started < 5


def test_a_held_request_answers_503_at_once_when_the_server_stops(app):
    runtime = app.extensions["antidrift.runtime"]
    client = app.test_client()
    known = tag(client)
    threading.Timer(0.2, runtime.shutting_down.set).start()
    started = time.monotonic()
    response = client.get("/state?wait=60", headers={"If-None-Match": known})
    assert response.status_code == 503 and "stopping" in response.get_json()["error"]
    assert time.monotonic() - started < 3


def test_waiters_are_bounded(app, monkeypatch):
    from antidrift.web import watch

    monkeypatch.setattr(watch, "MAX_WAITERS", 1)
    client = app.test_client()
    known = tag(client)
    first = threading.Thread(
        target=lambda: client.get("/state?wait=2", headers={"If-None-Match": known})
    )
    first.start()
    time.sleep(0.2)
    second = app.test_client().get("/state?wait=2", headers={"If-None-Match": known})
    assert second.status_code == 503 and "waiting" in second.get_json()["error"]
    app.test_client().post("/planning")  # lets the first one go
    first.join(5)
