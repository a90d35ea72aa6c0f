"""Two tabs, through Flask's test client and the push hub (0.6): /state's draft carries
`draft_version`; the planning form sends the version it shows and each answer to its own save
brings it with it; a Start from an older version with another plan is 409 "Changed in
another tab" with the other text, shown in the form's message slot, nothing started; a
draft saved in one tab is pushed to the other for the fields it is not typing in (never the
intent box); and a renamed commitment reaches an open editor's page without closing it."""

from __future__ import annotations

from tests.support.html import parse, top_level
from tests.support.plans import PLAN
from tests.support.web import HX, state, to

OTHER = {"next_action": "Call Dana", "success_condition": "Dana said yes", "timebox_minutes": "15"}
DRAFT_KEYS = {"intent", "next_action", "success_condition", "timebox_minutes", "edited", "task"}


def shown_version(client) -> str:
    """The version the page's plan form sends with Start."""
    field = parse(client.get("/").get_data(as_text=True)).by_id("draft_version")
    assert field.get("type") == "hidden" and field.get("name") == "draft_version"
    return field.get("value")


def drain(conn) -> None:
    while conn.next(0.01) is not None:
        pass


def connect(app, client):
    """A page's socket, as the page in `client` shows it, its first message read."""
    hub, views = app.extensions["antidrift.hub"], app.extensions["antidrift.views"]
    snap = app.extensions["antidrift.runtime"].controller.snapshot()
    conn = hub.connect(views.page(snap).shows)
    drain(conn)
    return hub, conn


def test_the_state_carries_draft_version_beside_every_key_it_had(client):
    to(client, "planning")
    draft = state(client)["draft"]
    assert set(draft) == DRAFT_KEYS | {"draft_version"} and draft["draft_version"] == 0
    client.post("/planning/draft", data={"next_action": "Write"})
    client.post("/planning/draft", data={"next_action": "Write"})  # unchanged: no new version
    client.post("/planning/draft", json={"success_condition": "Done", "timebox_minutes": 30})
    assert state(client)["draft"]["draft_version"] == 2
    assert shown_version(client) == "2"


def test_the_answer_to_a_save_brings_the_pages_version_with_it(client):
    to(client, "planning")
    response = client.post("/planning/draft", data={"next_action": "Write"}, headers=HX)
    count, version = top_level(response.get_data(as_text=True))
    assert count.text() == "5 / 500"
    assert (version.id, version.value(), version.get("hx-swap-oob")) == (
        "draft_version",
        "1",
        "true",
    )


def test_a_save_claims_the_new_version_only_for_a_page_that_showed_the_one_before(client):
    """A page that has not yet taken another tab's change (it says draft_version 0 while the
    draft is at 1) gets its count but no version: it must not claim a change it never showed
    (a Start from it would pass for up to date); the push of that change moves it on."""
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "Call Dana"})  # another tab: version 1
    behind = {"success_condition": "Dana said yes", "draft_version": "0"}
    answer = client.post("/planning/draft", data=behind, headers=HX).get_data(as_text=True)
    assert "13 / 500" in answer and 'id="draft_version"' not in answer
    assert state(client)["draft"]["success_condition"] == "Dana said yes"  # saved all the same
    # A page that showed version 2 is up to date: its save's answer brings version 3.
    current = {"success_condition": "Dana said yes, in writing", "draft_version": "2"}
    answer = top_level(client.post("/planning/draft", data=current, headers=HX).get_data(True))
    assert [(n.id, n.value()) for n in answer if n.id == "draft_version"] == [
        ("draft_version", "3")
    ]
    picked = {"timebox_minutes": "50", "draft_version": "1"}
    answer = client.post("/planning/minutes", data=picked, headers=HX).get_data(as_text=True)
    assert 'id="timebox_minutes"' in answer and 'id="draft_version"' not in answer
    assert state(client)["draft"]["timebox_minutes"] == "50"
    # A version that is no number is refused before anything is saved.
    bad = client.post("/planning/draft", data={"intent": "x", "draft_version": "soon"}, headers=HX)
    assert bad.status_code == 400 and state(client)["draft"]["intent"] == ""


def test_a_start_from_an_older_version_is_409_with_the_other_text_in_the_message_slot(client):
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "Write the intro"}, headers=HX)
    mine = shown_version(client)  # this tab; then another tab types its plan
    for name, value in OTHER.items():
        client.post("/planning/draft", data={name: value}, headers=HX)
    response = client.post("/commitment", data=PLAN | {"draft_version": mine}, headers=HX)
    assert response.status_code == 409
    html = response.get_data(as_text=True)
    message, version = top_level(html)
    said = message.text()
    assert said.startswith("Changed in another tab")
    for text in ("“Call Dana”", "“Dana said yes”", "15 min", "Start again"):
        assert text in said
    # The page now shows the saved version: Start again starts what it holds.
    assert (version.id, version.value(), version.get("hx-swap-oob")) == (
        "draft_version",
        "4",
        "true",
    )
    assert parse(html).by_id("next_action") is None  # the fields stay as typed
    body = state(client)
    assert body["runtime_state"] == "planning" and body["commitment"] is None
    again = client.post("/commitment", data=PLAN | {"draft_version": "4"}, headers=HX)
    assert again.status_code == 200
    assert state(client)["commitment"]["next_action"] == PLAN["next_action"]


def test_json_clients_keep_their_contract_and_may_send_a_version(client):
    to(client, "planning")
    client.post("/planning/draft", json=OTHER)
    stale = client.post("/commitment", json=PLAN | {"draft_version": 0})
    assert stale.status_code == 409
    assert stale.get_json()["error"].startswith("Changed in another tab: next action “Call Dana”")
    bad = client.post("/commitment", json=PLAN | {"draft_version": "soon"})
    assert bad.status_code == 400 and "draft_version" in bad.get_json()["error"]
    started = client.post("/commitment", json=PLAN)  # no version: as before 0.6
    assert started.status_code == 200
    assert started.get_json()["commitment"]["next_action"] == PLAN["next_action"]


def test_the_draft_saved_in_one_tab_is_pushed_to_the_other_unless_typed_in(app, client):
    to(client, "planning")
    hub, conn = connect(app, client)
    client.post("/planning/draft", data={"next_action": "Call Dana"}, headers=HX)
    hub.refresh()
    nodes = top_level(conn.next(1.0))
    parts = {node.id: node for node in nodes}
    assert set(parts) >= {"next_action", "count-next_action", "draft_version"}
    ids = [n.id for n in nodes]  # the fields first: each judged on the version the page shows
    assert ids.index("next_action") < ids.index("draft_version")
    assert not {"success_condition", "timebox_minutes", "intent"} & set(parts)
    field = parts["next_action"]
    assert field.value() == "Call Dana" and "autofocus" not in field.attrs
    # Each goes in only where the page still shows the version this push follows (a page
    # whose own save answered is past it), never while its own save is on its way (this may
    # be that save's echo), and where the page is not typing in that field (nor where an
    # answer just put it in, about to focus it: htmx-added until it settles).
    gate = "#view:has(#draft_version[value='0'])"
    assert field.get("hx-swap-oob") == (
        f"outerHTML:{gate} #next_action:not(:focus):not(.htmx-added):not(.htmx-request), document"
    )
    assert parts["count-next_action"].get("hx-swap-oob") == (
        f"outerHTML:{gate}:not(:has(#next_action:focus)):not(:has(#next_action.htmx-request))"
        " #count-next_action, document"
    )
    # The version follows the one the page had, if the field went in.
    assert parts["draft_version"].value() == "1"
    assert parts["draft_version"].get("hx-swap-oob") == (
        "outerHTML:#view:not(:has(#next_action:focus)):not(:has(#next_action.htmx-request))"
        " #draft_version[value='0'], document"
    )
    hub.refresh()
    assert conn.next(0.05) is None  # said once
    # The intent box is never pushed, and no plan field changed: nothing goes (a Start is
    # weighed by its plan as well as its version, so a version lagging behind an intent is
    # no conflict; Sharpen's pushes stay the coach's alone).
    client.post("/planning/draft", data={"intent": "the report"}, headers=HX)
    hub.refresh()
    assert conn.next(0.2) is None
    hub.disconnect(conn)


def test_a_page_that_connects_is_not_sent_the_draft_it_was_served(app, client):
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "Call Dana"})
    hub, conn = connect(app, client)
    hub.refresh()
    message = conn.next(0.05) or ""
    assert 'id="next_action"' not in message and 'id="draft_version"' not in message
    hub.disconnect(conn)


def test_a_rename_reaches_every_page_without_its_whole_view(app, client):
    to(client, "active")
    hub, conn = connect(app, client)
    client.post("/commitment/next_action", json={"next_action": "Fix the chart"})
    hub.refresh()
    message = conn.next(1.0)
    assert 'id="view"' not in message  # the whole view would close an open editor
    parts = top_level(message)
    (words,) = [p for p in parts if "#active-title" in (p.get("hx-swap-oob") or "") and not p.id]
    heading, focused = [p for p in parts if p.id == "active-title"]
    # The heading takes the words in place (a focus on it, or on an open editor, stays) ...
    assert (words.text(), words.get("hx-swap-oob")) == ("Fix the chart", "innerHTML:#active-title")
    # ... and is replaced only to change its size: without autofocus where it has no focus,
    # with it where it has.
    old_size = "#active-title[data-size=long]"
    assert heading.get("hx-swap-oob") == f"outerHTML:{old_size}:not(:focus), document"
    assert "autofocus" not in heading.attrs and heading.text() == "Fix the chart"
    assert focused.get("hx-swap-oob") == f"outerHTML:{old_size}:focus, document"
    assert "autofocus" in focused.attrs
    (editor,) = [p for p in parts if p.id == "edit-next"]
    assert editor.get("hx-swap-oob") == "outerHTML:#edit-next:not(:popover-open), document"
    assert editor.by_id("edit-next_action").value() == "Fix the chart"
    hub.refresh()
    assert "active-title" not in (conn.next(0.05) or "")  # said once
    hub.disconnect(conn)


def test_a_minute_pick_moves_the_pages_version_too(client):
    to(client, "planning")
    response = client.post("/planning/minutes", data={"timebox_minutes": "50"}, headers=HX)
    version = parse(response.get_data(as_text=True)).by_id("draft_version")
    assert (version.value(), version.get("hx-swap-oob")) == ("1", "true")
