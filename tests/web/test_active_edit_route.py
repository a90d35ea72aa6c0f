"""POST /commitment/next_action through Flask's test client: JSON clients get the state (or
the sentence and 400/409), the page gets its heading and closed editor out of band, or the
refusal beside the field (aria-invalid, focused, as typed); GET gives the editor's field
afresh; the count saves nothing; the active view names its accesskeys once each."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.web import state, to

HX = {"HX-Request": "true"}


def test_json_clients_change_it_and_get_the_state(client):
    to(client, "active")
    response = client.post("/commitment/next_action", json={"next_action": "Fix the chart"})
    assert response.status_code == 200
    assert response.get_json()["commitment"]["next_action"] == "Fix the chart"
    assert client.get("/commitment/next_action").get_json() == {"next_action": "Fix the chart"}
    doc = parse(client.get("/").get_data(as_text=True))
    assert doc.by_id("active-title").text().strip() == "Fix the chart"
    assert doc.by_id("edit-next_action").get("value") == "Fix the chart"


def test_a_refusal_is_a_sentence_and_nothing_changes(client):
    to(client, "active")
    before = state(client)["commitment"]["next_action"]
    response = client.post("/commitment/next_action", json={"next_action": "a\x07b"})
    assert response.status_code == 400 and "control character" in response.get_json()["error"]
    assert state(client)["commitment"]["next_action"] == before


def test_the_page_gets_the_refusal_beside_the_field(client):
    to(client, "active")
    response = client.post("/commitment/next_action", data={"next_action": "x" * 501}, headers=HX)
    assert response.status_code == 400
    doc = parse(response.get_data(as_text=True))
    field = doc.by_id("edit-next_action")
    assert field.get("aria-invalid") == "true" and "autofocus" in field.attrs
    assert field.get("value") == "x" * 501 and field.get("hx-swap-oob") == "true"
    assert "edit-next-message" in field.get("aria-describedby")
    assert "at most 500" in response.get_data(as_text=True)


def test_the_page_gets_its_heading_focused_and_the_editor_closed(client):
    to(client, "active")
    response = client.post("/commitment/next_action", data={"next_action": "Fix it"}, headers=HX)
    assert response.status_code == 200
    doc = parse(response.get_data(as_text=True))
    block = doc.by_id("active-next")
    assert block.get("hx-swap-oob") == "true"
    heading = doc.by_id("active-title")
    assert heading.text().strip() == "Fix it" and "autofocus" in heading.attrs
    assert heading.get("hx-swap-oob") is None  # swapped with its block, not on its own
    assert "popover" in doc.by_id("edit-next").attrs
    opened = parse(client.get("/commitment/next_action", headers=HX).get_data(as_text=True))
    assert opened.by_id("edit-next_action").get("value") == "Fix it"
    assert "autofocus" in opened.by_id("edit-next_action").attrs


@pytest.mark.parametrize("where", ["locked", "planning", "review"])
def test_outside_a_running_commitment_it_is_409(client, where):
    to(client, where)
    response = client.post("/commitment/next_action", json={"next_action": "Fix it"})
    assert response.status_code == 409
    assert response.get_json()["error"].startswith("You can't change the next action now")
    assert client.get("/commitment/next_action").status_code == 409
    assert state(client)["runtime_state"] == where


def test_the_count_saves_nothing(client):
    to(client, "active")
    response = client.post("/commitment/next_action/count", data={"next_action": "abc"})
    assert response.status_code == 200 and "3 / 500" in response.get_data(as_text=True)
    assert state(client)["commitment"]["next_action"] != "abc"


@pytest.mark.parametrize("paused", [False, True])
def test_the_active_view_names_each_accesskey_once(client, paused):
    to(client, "active")
    if paused:
        client.post("/pause")
    doc = parse(client.get("/").get_data(as_text=True))
    keys = {}
    for node in doc.find_all("button"):
        if node.get("accesskey"):
            keys.setdefault(node.get("accesskey"), []).append(node.text().strip())
    expected = {"p": ["Resume"], "n": ["Finish"]} if paused else {
        "p": ["Pause"], "n": ["Finish"], "m": ["+5 min"]
    }  # fmt: skip
    assert keys == expected
    hints = doc.by_id("shortcuts").text()
    assert "Alt+P" in hints and "Alt+N" in hints and "Firefox" in hints
    assert ("Alt+M" in hints) is not paused
