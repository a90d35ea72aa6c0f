"""A refused plan from the page: one message naming every field at fault, each such field
marked aria-invalid (and the first focused), what was typed kept; JSON clients get JSON."""

from __future__ import annotations

from tests.support.html import top_level
from tests.support.web import HX, state, to

FIELDS = ("next_action", "success_condition", "timebox_minutes")


def refused(client, data: dict) -> tuple[str, dict]:
    response = client.post("/commitment", data=data, headers=HX)
    assert response.status_code == 400
    roots = top_level(response.get_data(as_text=True))
    message = [n for n in roots if not n.get("hx-swap-oob")]
    fields = {n.id: n for n in roots if n.get("hx-swap-oob") == "true"}
    counts = {k: fields.pop(k).text() for k in list(fields) if k.startswith("count-")}
    assert sorted(counts) == ["count-next_action", "count-success_condition"]  # as typed
    assert len(message) == 1
    assert set(fields) == set(FIELDS)
    return message[0].text(), fields


def test_every_missing_field_is_named_at_once_and_marked(client):
    to(client, "planning")
    text, fields = refused(
        client, {"next_action": " ", "success_condition": "", "timebox_minutes": "0"}
    )
    assert "Next action is required" in text
    assert "Done when is required" in text and "success condition" not in text
    assert "Minutes" in text
    for name in FIELDS:
        assert fields[name].get("aria-invalid") == "true", name
        assert fields[name].get("aria-describedby").split()[0] == "plan-message"  # first
    assert "autofocus" in fields["next_action"].attrs
    assert not any("autofocus" in fields[n].attrs for n in FIELDS[1:])
    assert state(client)["runtime_state"] == "planning"


def test_only_the_fields_at_fault_are_marked_and_what_was_typed_stays(client):
    to(client, "planning")
    typed = {"next_action": "Write <b>it</b>", "success_condition": "", "timebox_minutes": "45"}
    text, fields = refused(client, typed)
    assert "Next action" not in text
    assert fields["success_condition"].get("aria-invalid") == "true"
    assert "autofocus" in fields["success_condition"].attrs
    for name in ("next_action", "timebox_minutes"):
        assert fields[name].get("aria-invalid") is None
        assert "autofocus" not in fields[name].attrs
    assert fields["next_action"].value() == "Write <b>it</b>"  # kept, as text
    assert fields["timebox_minutes"].value() == "45"
    assert fields["success_condition"].tag == "textarea"


def test_a_json_client_gets_every_problem_in_its_error(client):
    to(client, "planning")
    response = client.post("/commitment", json={"next_action": "", "success_condition": ""})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert "Next action" in error and "Done when is required" in error and "1 to 480" in error
    assert "success condition" not in error  # the words people read; the JSON key stays
