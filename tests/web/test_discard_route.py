"""POST /discard through Flask's test client: the running commitment goes to /history as
discarded, the page lists it so, the week and Insights leave it out; 409 when none runs."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.web import state, to


def test_discard_sends_the_running_commitment_to_history_as_discarded(client, clock):
    to(client, "active")
    clock.advance(120)
    response = client.post("/discard")
    assert response.status_code == 200 and response.get_json()["runtime_state"] == "locked"
    [item] = client.get("/history").get_json()
    assert (item["outcome"], item["actual_secs"]) == ("discarded", 120)
    doc = parse(client.get("/").get_data(as_text=True))
    assert doc.by_id("closure") is None
    badges = [n.text().strip() for n in doc.find_all("span") if "badge" in n.get("class", "")]
    assert badges == ["discarded"]
    week = client.get("/week.json").get_json()
    assert week["days"][-1]["focused_minutes"] == 0
    assert (week["days"][-1]["met"], week["days"][-1]["missed"]) == (0, 0)
    assert client.get("/insights").status_code == 200
    assert "discarded" in client.get("/history.csv").get_data(as_text=True)


@pytest.mark.parametrize("where", ["locked", "planning", "review"])
def test_discard_outside_a_running_commitment_is_409(client, where):
    to(client, where)
    response = client.post("/discard")
    assert response.status_code == 409 and response.get_json()["error"].startswith("You can't")
    assert state(client)["runtime_state"] == where


def test_the_active_view_offers_discard_and_asks_first_in_a_popover(client):
    to(client, "active")
    doc = parse(client.get("/").get_data(as_text=True))
    controls = doc.by_id("controls")
    # Discard opens the question (HTML's popover: no script, no bare confirm()).
    [opener] = [
        b
        for b in controls.find_all("button")
        if "popovertargetaction" not in b.attrs and b.get("popovertarget")
    ]
    assert (opener.text().strip(), opener.get("popovertarget")) == ("Discard", "discard-confirm")
    assert opener.get("hx-post") is None and "hx-confirm" not in opener.attrs
    pop = doc.by_id("discard-confirm")
    assert "popover" in pop.attrs and pop.get("role") == "dialog"
    assert "neither met nor missed" in doc.by_id(pop.get("aria-labelledby")).text()
    discard, keep = pop.find_all("button")
    # Discard posts as before (POST /discard); Keep it, focused as it opens, only closes it.
    assert (discard.text().strip(), discard.get("hx-post")) == ("Discard", "/discard")
    assert keep.text().strip() == "Keep it" and "autofocus" in keep.attrs
    assert keep.get("hx-post") is None
    for b in (discard, keep):
        assert (b.get("popovertarget"), b.get("popovertargetaction")) == ("discard-confirm", "hide")
    assert "hx-confirm" not in client.get("/").get_data(as_text=True)
