"""The one handler (web/errors.py): an Error answers with its own status and its sentence,
to htmx as the page's message and to JSON clients as {"error": …}, and nothing changes."""

from __future__ import annotations

from antidrift.core.errors import WriteFailed
from tests.support.web import HX, state


def test_a_failed_write_is_a_503_with_its_cause_and_a_sentence_for_the_page(client, store):
    store.fail_saves = WriteFailed("the disk is full: free some space")
    as_json = client.post("/planning")
    assert as_json.status_code == 503
    assert as_json.get_json() == {"error": "the disk is full: free some space"}
    on_page = client.post("/planning", headers=HX)
    assert on_page.status_code == 503
    assert "The disk is full: free some space" in on_page.get_data(as_text=True)
    store.fail_saves = None
    assert state(client)["runtime_state"] == "locked"  # nothing changed


def test_an_illegal_move_is_a_409_in_the_same_handler(client):
    refused = client.post("/finish")
    assert refused.status_code == 409 and refused.get_json()["error"]
    assert state(client)["runtime_state"] == "locked"
