"""POST /break and /break/end through Flask's test client: /state's "break", the 4xx
sentences (nothing changed), the break's view (its timer, the tab's title and icon), the
chime and "Break over" at its end with the focus on Plan the next; and the closure and
Undo Finish as the page shows them after a restart."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tests.support.html import parse
from tests.support.web import HX, state, to


def page(client):
    return parse(client.get("/").get_data(as_text=True))


def _ended(client):
    to(client, "review")
    assert client.post("/end", data={"outcome": "met"}).status_code == 200


def test_a_break_after_end_is_in_state_and_ends_early_by_hand(client, clock):
    assert state(client)["break"] is None
    _ended(client)
    response = client.post("/break")
    assert response.status_code == 200
    rest = response.get_json()["break"]
    assert rest["long"] is False
    assert datetime.fromisoformat(rest["ends_at"]) == clock.now() + timedelta(minutes=5)
    assert state(client)["runtime_state"] == "locked"
    assert client.post("/break/end").status_code == 200
    assert state(client)["break"] is None
    response = client.post("/break/end")
    assert response.status_code == 409 and response.get_json()["error"] == (
        "There is no break to end."
    )


def test_minutes_are_taken_and_bad_ones_are_a_sentence(client, clock):
    _ended(client)
    for bad in ("0", "500", "five", "-3"):
        response = client.post("/break", data={"minutes": bad})
        assert response.status_code == 400
        assert "whole number of minutes from 1 to 120" in response.get_json()["error"]
        assert state(client)["break"] is None
    response = client.post("/break", json={"minutes": 10})
    ends = datetime.fromisoformat(response.get_json()["break"]["ends_at"])
    assert ends == clock.now() + timedelta(minutes=10)


@pytest.mark.parametrize("where", ["planning", "active", "review"])
def test_a_break_outside_locked_is_409(client, where):
    to(client, where)
    response = client.post("/break")
    assert response.status_code == 409 and response.get_json()["error"].startswith("You can't")
    assert state(client)["runtime_state"] == where and state(client)["break"] is None


def test_the_closure_offers_break_and_the_break_view_has_its_clock(client, clock):
    _ended(client)
    closure = page(client).by_id("closure")
    assert any(b.text().strip() == "Break" for b in closure.find_all("button"))
    assert client.post("/break", headers=HX).status_code == 200
    clock.advance(61)
    doc = page(client)
    assert doc.by_id("view").attrs["data-state"] == "break"
    timer = doc.by_id("break-left").find_all(role="timer")
    assert timer and "03:59" in timer[0].text()
    assert doc.find_all("title")[0].text() == "Break · 03:59 · AntiDrift"
    assert "state=break" in doc.by_id("icon").attrs["href"]
    assert client.get(doc.by_id("icon").attrs["href"]).status_code == 200


def test_at_its_end_a_chime_and_break_over_with_plan_the_next_focused(app, client, clock):
    _ended(client)
    client.post("/break")
    hub = app.extensions["antidrift.hub"]
    views = app.extensions["antidrift.views"]
    conn = hub.connect(views.page(app.extensions["antidrift.runtime"].controller.snapshot()).shows)
    while conn.next(0.01) is not None:
        pass
    clock.advance(5 * 60)
    app.extensions["antidrift.runtime"].controller.breaks.tick()
    hub.refresh()
    pushed = conn.next(1.0)
    doc = parse(pushed)
    assert doc.by_id("chime").find_all("audio")
    assert doc.by_id("view").attrs["data-state"] == "locked"
    closure = doc.by_id("closure")
    assert "Break over" in closure.text()
    plan = [b for b in closure.find_all("button") if b.text().strip() == "Plan the next"]
    assert plan and "autofocus" in plan[0].attrs
    assert not [b for b in closure.find_all("button") if b.text().strip() == "Break"]
    hub.disconnect(conn)


def test_after_the_break_its_end_leads_and_the_outcome_is_said_calmly(app, client, clock):
    to(client, "review")
    assert client.post("/end", data={"outcome": "missed"}).status_code == 200
    closure = page(client).by_id("closure")
    # Right after the review the outcome is the heading, as saved.
    assert closure.find_all("h1")[0].text() == "Missed"
    assert "closure-rested" not in closure.get("class")
    client.post("/break")
    clock.advance(5 * 60)  # the break runs its course: "Break over"
    app.extensions["antidrift.runtime"].controller.breaks.tick()
    closure = page(client).by_id("closure")
    eyebrow, heading = closure.find_all("p", class_="eyebrow")[0], closure.find_all("h1")[0]
    # "Break over" first; the outcome after it, a sentence in the page's ink (loop.css:
    # .closure-rested), not a shouted "Missed".
    assert eyebrow.text() == "Break over"
    assert heading.text() == "Before the break: missed" and heading.id == "locked-title"
    assert "closure-rested" in closure.get("class")
    html = client.get("/").get_data(as_text=True)
    assert html.index("Break over") < html.index("Before the break: missed")


def test_the_break_settings_are_on_the_settings_page(client):
    text = client.get("/settings").get_data(as_text=True)
    for key in ("break_minutes", "long_break_minutes", "long_break_every", "auto_break"):
        assert f'name="{key}"' in text


def test_auto_break_is_an_on_off_choice_that_saves(client):
    doc = parse(client.get("/settings").get_data(as_text=True))
    [select] = doc.find_all("select", name="auto_break")
    options = {o.get("value"): "selected" in o.attrs for o in select.find_all("option")}
    assert options == {"off": True, "on": False}
    response = client.post("/settings", json={"auto_break": "on", "break_minutes": "10"})
    assert response.status_code == 200
    body = client.get("/settings.json").get_json()
    assert (body["auto_break"]["value"], body["break_minutes"]["value"]) == (True, 10)
    doc = parse(client.get("/settings").get_data(as_text=True))
    [select] = doc.find_all("select", name="auto_break")
    assert [o.get("value") for o in select.find_all("option") if "selected" in o.attrs] == ["on"]
