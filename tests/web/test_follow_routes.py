"""POST /follow and /follow/stop (Guard here too) through Flask's test client over fakes: the
/state shape while following, every refusal a sentence with its status and nothing changed,
and the locked view's Guard here too form and the line that says what is guarded."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.records import running_on
from tests.support.web import HX, state, to

DESK = running_on("desk <b>")  # another machine's name: text on the page, never markup


@pytest.fixture
def desk(app, controller):
    """Sync on, the desk's commitment running (its `now` fresh); `now["entry"] = None`: not
    seen for 3 minutes."""
    now = {"entry": dict(DESK)}
    controller.following.look = lambda device_id: now["entry"] if device_id == "desk0id" else None
    views = app.extensions["antidrift.views"]
    views.elsewhere = lambda: [now["entry"]] if now["entry"] else []
    return now


def _refused(client, path, data, status, sentence):
    before = state(client)
    response = client.post(path, data=data)
    assert response.status_code == status
    assert response.get_json() == {"error": sentence}
    assert state(client) == before  # nothing changed


def test_following_keeps_this_machine_locked_and_state_says_whose(client, desk):
    assert state(client)["following"] is None and "drift" not in state(client)
    body = client.post("/follow", json={"device_id": "desk0id"}).get_json()
    assert body["runtime_state"] == "locked" and body["commitment"] is None
    assert body["following"] == {
        "device": "desk <b>",
        "device_id": "desk0id",
        "commitment_id": "c-desk",
    }
    assert body["drift"]["status"] == "unknown"  # the followed work's guard: no window yet
    assert client.post("/follow/stop", json={}).get_json()["following"] is None
    assert "drift" not in state(client)


def test_each_refusal_is_a_sentence_and_changes_nothing(client, desk):
    _refused(
        client,
        "/follow/stop",
        {},
        409,
        "You are not guarding another machine's commitment here.",
    )
    _refused(
        client,
        "/follow",
        {},
        400,
        "Say which machine's commitment to guard: its device_id.",
    )
    _refused(
        client,
        "/follow",
        {"device_id": "nobody0id"},
        404,
        "No other machine with that id was seen in the last 3 minutes: there is nothing to"
        " guard here.",
    )
    desk["entry"] = {**DESK, "state": "locked", "commitment_id": None}
    _refused(
        client, "/follow", {"device_id": "desk0id"}, 409, "No commitment runs on desk <b> now:"
        " nothing to guard."
    )  # fmt: skip
    desk["entry"] = dict(DESK)
    assert client.post("/follow", data={"device_id": "desk0id"}).status_code == 200
    _refused(
        client,
        "/follow",
        {"device_id": "desk0id"},
        409,
        "You are guarding desk <b>'s commitment here already: stop that first.",
    )


@pytest.mark.parametrize("where", ["planning", "active", "review"])
def test_follow_from_anywhere_but_locked_is_409_before_the_input_is_read(client, desk, where):
    to(client, where)
    before = state(client)
    response = client.post("/follow", data={})  # no device_id: still the state's refusal
    assert response.status_code == 409
    assert response.get_json()["error"].startswith(
        "You can't guard another machine's commitment here now: "
    )
    assert state(client) == before


def test_the_locked_view_offers_guard_here_too_and_then_says_what_is_guarded(client, desk):
    page = parse(client.get("/").get_data(as_text=True))
    [form] = page.by_id("elsewhere").find_all("form")
    assert (form.get("method"), form.get("action"), form.get("hx-post")) == (
        "post",
        "/follow",
        "/follow",
    )
    [field] = form.fields()
    assert (field.get("type"), field.get("name"), field.value()) == (
        "hidden",
        "device_id",
        "desk0id",
    )
    assert form.find_all("button")[0].text() == "Guard here too"
    assert "hidden" in page.by_id("following").attrs
    answer = client.post("/follow", data={"device_id": "desk0id"}, headers=HX)
    assert "desk &lt;b&gt;" in answer.get_data(as_text=True)  # escaped
    page = parse(client.get("/").get_data(as_text=True))
    assert page.by_id("elsewhere").find_all("form") == []  # guarding one: no more offers
    line = page.by_id("following")
    assert "hidden" not in line.attrs
    text = " ".join(line.text().split())
    assert text.startswith("Guarding desk <b>'s commitment here: Write the intro")
    assert "No AI judges windows on this machine" in text
    assert "Not judged — no window seen yet" in text
    [stop] = line.find_all("form")
    assert stop.get("action") == "/follow/stop" and stop.find_all("button")[0].text() == (
        "Stop guarding"
    )
    # A plain form (no htmx) is sent back to the page.
    plain = client.post("/follow/stop", headers={"Accept": "text/html"})
    assert (plain.status_code, plain.headers["Location"]) == (303, "/")


def test_when_it_ends_there_the_page_says_so(client, desk, controller):
    client.post("/follow", data={"device_id": "desk0id"})
    desk["entry"] = {**DESK, "state": "review"}
    controller.following.tick()
    assert state(client)["following"] is None
    line = parse(client.get("/").get_data(as_text=True)).by_id("following")
    assert " ".join(line.text().split()) == (
        "Stopped guarding desk <b>'s commitment here: it ended there."
    )
