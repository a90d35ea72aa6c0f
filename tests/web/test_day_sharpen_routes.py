"""Sharpen the day over HTTP (issue 43 item 3): POST /day/sharpen in any state (202 pending,
or the sentence why there is no coach; a bad rough day a 400 that asks nothing), the card on
/day while a proposal waits, and POST /day/proposal/use answering the page with the queue
(focus on its heading, the add form as typed) and the card out of band; every refusal a 4xx
with a sentence that changes nothing."""

from __future__ import annotations

import pytest

from antidrift.core.day import MAX_ITEMS
from tests.fakes import wait_until
from tests.support.html import parse, top_level

HX = {"HX-Request": "true"}
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def client(make_app, controller, fake_coach):
    return make_app(controller, fake_coach).test_client()


def proposed(client, controller) -> str:
    """Sharpen the day, and the proposal's key once it is ready (the fake's two)."""
    assert client.post("/day/sharpen", json={"intent": "grant report, a PR"}).status_code == 202
    wait_until(lambda: controller.snapshot().day_plan.status == "ready")
    return controller.snapshot().day_plan.key


def day(client) -> dict:
    return client.get("/day.json").get_json()


def test_sharpen_answers_pending_and_day_json_then_carries_the_proposal(client, controller):
    assert day(client)["proposal"] is None
    response = client.post("/day/sharpen", json={"intent": "grant report, a PR"})
    assert response.status_code == 202
    assert response.get_json() == {"status": "pending", "error": None}
    wait_until(lambda: day(client)["proposal"] is not None)
    assert day(client)["proposal"] == [
        {
            "next_action": "Draft the grant summary",
            "success_condition": "One page in the doc",
            "timebox_minutes": 50,
        },
        {
            "next_action": "Review the first PR",
            "success_condition": "Comments posted",
            "timebox_minutes": 30,
        },
    ]
    assert day(client)["items"] == []  # proposed, not added


def test_without_a_coach_sharpen_says_so_and_the_queue_works(make_controller, make_app):
    client = make_app(make_controller(None)).test_client()
    response = client.post("/day/sharpen", json={"intent": "the day"})
    assert response.status_code == 200
    assert response.get_json()["status"] == "error"
    assert response.get_json()["error"].startswith("coach unavailable")
    page = parse(client.get("/day", headers=BROWSER).get_data(as_text=True))
    assert "Coach unavailable" in page.by_id("day-proposal").text()
    assert client.post("/day/items", json={"next_action": "By hand"}).status_code == 201


@pytest.mark.parametrize("intent", [None, "   ", "x" * 2001, 42])
def test_a_bad_rough_day_is_a_400_with_a_sentence_and_asks_nothing(
    client, controller, fake_coach, intent
):
    response = client.post("/day/sharpen", json={"intent": intent})
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("Your rough day")
    htmx = client.post("/day/sharpen", data={"intent": "  "}, headers=HX)
    assert htmx.status_code == 400
    assert parse(htmx.get_data(as_text=True)).text() == "Your rough day is required."
    assert fake_coach.calls == [] and controller.snapshot().day_plan.status == "idle"


def test_the_htmx_answer_empties_the_message_and_brings_the_card_out_of_band(client, fake_coach):
    fake_coach.gated = True
    answer = client.post("/day/sharpen", data={"intent": "the day"}, headers=HX)
    [card] = top_level(answer.get_data(as_text=True))
    assert card.id == "day-proposal" and card.get("hx-swap-oob") == "true"
    assert card.get("data-status") == "pending" and card.fields() == []
    fake_coach.release_all()


def test_the_page_shows_the_form_the_waiting_card_and_a_socket_for_it(client, controller):
    key = proposed(client, controller)
    page = parse(client.get("/day", headers=BROWSER).get_data(as_text=True))
    intent = page.by_id("day-intent")
    assert intent.tag == "textarea" and intent.get("name") == "intent"
    assert page.by_id("day-proposal").get("data-status") == "ready"
    assert page.by_id("day-proposal").by_id("day-intent") is None  # never pushed over it
    assert page.by_id("ws").get("ws-connect") == f"/ws?view=day&p={key}"
    labels = [b.get("aria-label") for b in page.by_id("day-proposal").iter() if b.tag == "button"]
    assert labels == [
        "Add to the day: Draft the grant summary",
        "Add to the day: Review the first PR",
        None,  # Add all 2: its words say it
    ]


def test_add_answers_the_queue_focused_the_typed_form_kept_and_the_card(client, controller):
    key = proposed(client, controller)
    typed = {"next_action": "Half typed", "success_condition": "", "timebox_minutes": "1"}
    answer = client.post(
        "/day/proposal/use", data={"index": "1", "proposal": key, **typed}, headers=HX
    )
    assert answer.status_code == 201
    top = {n.id: n for n in top_level(answer.get_data(as_text=True))}
    assert list(top) == ["day", "day-message", "day-proposal"]
    assert "autofocus" in top["day"].by_id("day-title").attrs
    assert top["day"].by_id("day-next-action").value() == "Half typed"
    assert top["day"].by_id("day-minutes").value() == "1"
    assert top["day-message"].text() == "Added: Review the first PR"
    assert top["day-proposal"].get("hx-swap-oob") == "true"
    assert [i["next_action"] for i in day(client)["items"]] == ["Review the first PR"]
    assert [p["next_action"] for p in day(client)["proposal"]] == ["Draft the grant summary"]
    # The last one added, the card is gone (hidden) and /day.json says none.
    client.post("/day/proposal/use", data={"all": "1"}, headers=HX)
    assert day(client)["proposal"] is None
    page = parse(client.get("/day", headers=BROWSER).get_data(as_text=True))
    assert "hidden" in page.by_id("day-proposal").attrs


def test_a_plain_form_is_sent_back_to_the_day(client, controller):
    key = proposed(client, controller)
    answer = client.post("/day/proposal/use", data={"all": "1", "proposal": key}, headers=BROWSER)
    assert answer.status_code == 303 and answer.headers["Location"] == "/day"
    assert len(day(client)["items"]) == 2


@pytest.mark.parametrize(
    ("form", "status", "said"),
    [
        ({"index": "2"}, 404, "There is no such entry in the proposal (any more)"),
        ({"index": "0", "proposal": "an-older-one"}, 409, "The proposal changed"),
        ({"index": "-1"}, 400, "Say which to add"),
        ({}, 400, "Say which to add"),
    ],
)
def test_a_refused_add_is_a_sentence_and_changes_nothing(client, controller, form, status, said):
    proposed(client, controller)
    before = day(client)
    answer = client.post("/day/proposal/use", data=form, headers=HX)
    assert answer.status_code == status
    top = {n.id: n for n in top_level(answer.get_data(as_text=True))}
    assert top["day-message"].text().startswith(said)
    assert top["day-proposal"].get("data-status") == "ready"  # the card as it is now
    json = client.post("/day/proposal/use", json={k: v for k, v in form.items()})
    assert json.status_code == status and json.get_json()["error"].startswith(said)
    assert day(client) == before


def test_adding_past_fifty_items_adds_none(client, controller):
    for n in range(MAX_ITEMS - 1):
        assert client.post("/day/items", json={"next_action": f"Item {n}"}).status_code == 201
    proposed(client, controller)
    before = day(client)
    refused = client.post("/day/proposal/use", json={"all": "1"})
    assert refused.status_code == 409
    assert "would make 51 items" in refused.get_json()["error"]
    assert day(client) == before
    assert client.post("/day/proposal/use", json={"index": 0}).status_code == 201


def test_nothing_to_add_from_is_a_409(client):
    refused = client.post("/day/proposal/use", json={"index": 0})
    assert refused.status_code == 409 and "no proposal" in refused.get_json()["error"]
