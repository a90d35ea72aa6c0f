"""Typing is never lost (0.4): POST /planning/draft keeps the planning form as typed, through
a reload and a restart; a proposal fills only the fields the user left alone, whenever the
others were typed in (0.5: a second Sharpen included), and offers itself beside them
(suggest-<field>, POST /coach/use); the push that fills them focuses Start."""

from __future__ import annotations

import pytest

from antidrift.ai import Proposal
from antidrift.core.domain import MAX_INTENT, MAX_TEXT, RuntimeState
from antidrift.web.views import Shows
from tests.fakes import FakeCoach, wait_until
from tests.support.html import parse, top_level
from tests.support.plans import PLAN
from tests.support.session import build_controller
from tests.support.web import HX, state, to

PROPOSAL = Proposal("Outline the report", "Five headings agreed", 40)


@pytest.fixture
def gated(make_controller, make_app):
    """A client whose coach waits until the test releases it (a slow Sharpen)."""
    coach = FakeCoach(PROPOSAL, gated=True)
    controller = make_controller(coach)
    return make_app(controller, coach).test_client(), coach, controller


def field_value(html: str, name: str) -> str:
    node = parse(html).by_id(name)
    return node.value() or ""


def test_a_draft_is_saved_partially_and_the_planning_view_renders_it(client):
    to(client, "planning")
    assert client.post("/planning/draft", data={"next_action": "Write the "}).status_code == 200
    assert client.post("/planning/draft", json={"timebox_minutes": 35}).status_code == 200
    draft = state(client)["draft"]
    assert draft["next_action"] == "Write the " and draft["timebox_minutes"] == "35"
    assert draft["intent"] == "" and draft["success_condition"] == ""
    page = client.get("/").get_data(as_text=True)
    assert field_value(page, "next_action") == "Write the "
    assert field_value(page, "timebox_minutes") == "35"


def test_the_page_answers_a_text_fields_draft_with_its_count_and_minutes_with_its_version(
    client,
):
    """Each answer also brings the page its draft version (test_two_tabs.py)."""
    to(client, "planning")
    response = client.post("/planning/draft", data={"intent": "the report"}, headers=HX)
    assert response.status_code == 200
    assert parse(response.get_data(as_text=True)).text() == "10 / 2000"
    assert 'value="the report"' in client.get("/").get_data(as_text=True)
    response = client.post("/planning/draft", data={"timebox_minutes": "30"}, headers=HX)
    assert response.status_code == 200
    (version,) = top_level(response.get_data(as_text=True))
    assert (version.get("id"), version.get("type")) == ("draft_version", "hidden")


@pytest.mark.parametrize("target", ["locked", "active", "review"])
def test_a_draft_outside_planning_is_409_and_changes_nothing(client, store, target):
    to(client, target)
    before = store.draft
    response = client.post("/planning/draft", data={"next_action": "x"})
    assert response.status_code == 409
    assert store.draft == before and "draft" not in state(client)


@pytest.mark.parametrize(
    "data",
    [
        {"timebox_minutes": "0"},
        {"timebox_minutes": "481"},
        {"timebox_minutes": "ten"},
        {"next_action": "x" * 501},
        {"success_condition": "a\x00b"},
        {"intent": "y" * 2001},
        {},
        {"unknown": "field"},
    ],
)
def test_a_draft_out_of_bounds_is_400_and_nothing_is_saved(client, store, data):
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "kept"})
    saved = store.draft
    response = client.post("/planning/draft", json=data)
    assert response.status_code == 400
    assert response.get_json()["error"]
    assert store.draft == saved
    assert state(client)["draft"]["next_action"] == "kept"


def test_an_empty_minutes_field_is_a_draft_in_progress(client):
    to(client, "planning")
    assert client.post("/planning/draft", data={"timebox_minutes": ""}).status_code == 200
    assert state(client)["draft"]["timebox_minutes"] == ""


def test_a_restart_keeps_the_draft(client, store, clock):
    to(client, "planning")
    client.post("/planning/draft", data={"intent": "the quarterly", "next_action": "Plan it"})
    again = build_controller(store, clock)  # a new process over the same store
    try:
        draft = again.snapshot().draft
        assert (draft.intent, draft.next_action) == ("the quarterly", "Plan it")
    finally:
        again.shutdown()


def test_a_new_planning_starts_from_an_empty_draft(client, store):
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "old words"})
    client.post("/planning/cancel")
    assert store.draft is None
    client.post("/planning")
    assert state(client)["draft"]["next_action"] == ""


def test_starting_the_commitment_clears_the_draft(client, store):
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "Write the intro"})
    assert client.post("/commitment", data=PLAN).status_code == 200
    assert store.draft is None


def test_a_proposal_fills_untouched_fields_and_keeps_the_edited_one(gated):
    client, coach, controller = gated
    to(client, "planning")
    client.post("/coach", data={"intent": "the report"})
    coach.wait_calls(1)
    # The user types in Next action while the coach thinks.
    client.post("/planning/draft", data={"next_action": "My own words"})
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    draft = state(client)["draft"]
    assert draft["next_action"] == "My own words", "the proposal overwrote the typing"
    assert draft["success_condition"] == "Five headings agreed"
    assert draft["timebox_minutes"] == "40"
    page = client.get("/").get_data(as_text=True)
    assert field_value(page, "next_action") == "My own words"
    suggestion = parse(page).by_id("suggest-next_action")
    assert "hidden" not in suggestion.attrs
    assert "Outline the report" in suggestion.text()
    # The untouched fields take the proposal and offer nothing beside them.
    assert "hidden" in parse(page).by_id("suggest-success_condition").attrs
    assert "hidden" in parse(page).by_id("suggest-timebox_minutes").attrs


def test_use_puts_the_proposal_into_the_field_and_the_suggestion_goes(gated):
    client, coach, controller = gated
    to(client, "planning")
    client.post("/coach", data={"intent": "the report"})
    coach.wait_calls(1)
    client.post("/planning/draft", data={"timebox_minutes": "15"})
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    assert state(client)["draft"]["timebox_minutes"] == "15"
    response = client.post("/coach/use", data={"field": "timebox_minutes"}, headers=HX)
    assert response.status_code == 200
    node, version = top_level(response.get_data(as_text=True))  # and the page's version
    assert version.id == "draft_version"
    assert node.id == "timebox_minutes" and node.value() == "40"
    assert node.get("hx-swap-oob") == "true" and "autofocus" in node.attrs
    assert state(client)["draft"]["timebox_minutes"] == "40"
    page = client.get("/").get_data(as_text=True)
    assert "hidden" in parse(page).by_id("suggest-timebox_minutes").attrs


def prefill(client) -> list:
    """The top-level elements the push of a ready proposal carries."""
    app = client.application
    snap = app.extensions["antidrift.runtime"].controller.snapshot()
    widgets = {w.name: w for w in app.extensions["antidrift.views"].widgets(snap)}
    html = app.extensions["antidrift.renderer"].prefill(widgets["coach"], Shows.of(snap))
    return top_level(html)


def sharpen(client, coach, calls: int) -> None:
    """Sharpen, and let the coach answer (the `calls`-th call) once it has started."""
    client.post("/coach", data={"intent": "the report"})
    coach.wait_calls(calls)
    coach.release()
    wait_until(
        lambda: (
            state(client)["coach"]["status"] == "ready"
            and len(coach.calls) == calls
            and coach.calls[-1].finished.is_set()
        )
    )


def suggested(client, name: str) -> str | None:
    """The text beside a field, or None while its suggestion is hidden."""
    node = parse(client.get("/").get_data(as_text=True)).by_id(f"suggest-{name}")
    return None if "hidden" in node.attrs else node.text()


def test_an_edit_after_a_proposal_stays_through_the_next_sharpen(gated):
    client, coach, controller = gated
    coach.enqueue(Proposal("Write the summary", "One page, sent", 30))  # after PROPOSAL
    to(client, "planning")
    sharpen(client, coach, 1)
    assert state(client)["draft"]["next_action"] == "Outline the report"
    client.post("/planning/draft", data={"next_action": "Call Dana first"})  # after it landed
    sharpen(client, coach, 2)
    draft = state(client)["draft"]
    assert draft["next_action"] == "Call Dana first", "the second Sharpen wrote over the edit"
    assert (draft["success_condition"], draft["timebox_minutes"]) == ("One page, sent", "30")
    assert "Write the summary" in suggested(client, "next_action")
    assert suggested(client, "success_condition") is None
    page = client.get("/").get_data(as_text=True)
    assert field_value(page, "next_action") == "Call Dana first"
    pushed = [r.id for r in prefill(client)]
    assert "next_action" not in pushed and "success_condition" in pushed


def test_an_edit_before_sharpen_is_kept_too(gated):
    client, coach, controller = gated
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "typed before"})
    sharpen(client, coach, 1)
    assert state(client)["draft"]["next_action"] == "typed before"
    assert "Outline the report" in suggested(client, "next_action")


def test_an_emptied_field_and_a_used_one_take_the_next_proposal(gated):
    client, coach, controller = gated
    coach.enqueue(Proposal("Write the summary", "One page, sent", 30))  # after PROPOSAL
    to(client, "planning")
    client.post("/planning/draft", data={"next_action": "mine", "timebox_minutes": "15"})
    sharpen(client, coach, 1)
    client.post("/planning/draft", data={"next_action": ""})  # nothing left to write over
    client.post("/coach/use", data={"field": "timebox_minutes"}, headers=HX)  # the coach's now
    assert state(client)["draft"]["edited"] == ["next_action"]  # edited, but empty
    sharpen(client, coach, 2)
    draft = state(client)["draft"]
    assert (draft["next_action"], draft["timebox_minutes"]) == ("Write the summary", "30")


def test_the_push_that_fills_the_plan_focuses_start_unless_the_user_typed_meanwhile(gated):
    client, coach, controller = gated
    to(client, "planning")
    page = parse(client.get("/").get_data(as_text=True))
    assert "autofocus" not in page.by_id("start").attrs  # the page opens on the intent
    assert "autofocus" in page.by_id("intent").attrs
    sharpen(client, coach, 1)
    [start] = [r for r in prefill(client) if r.id == "start"]
    assert start.tag == "button" and start.get("type") == "submit" and "autofocus" in start.attrs
    assert start.text() == "Start"
    # Typing while the coach thinks: the focus stays where the user types.
    client.post("/coach", data={"intent": "the report"})
    coach.wait_calls(2)
    client.post("/planning/draft", data={"success_condition": "Two pages"})
    coach.release()
    wait_until(
        lambda: coach.calls[-1].finished.is_set() and state(client)["coach"]["status"] == "ready"
    )
    roots = prefill(client)
    assert "start" not in [r.id for r in roots]
    assert not any("autofocus" in n.attrs for r in roots for n in r.iter())


@pytest.mark.parametrize(
    ("data", "status"),
    [({"field": "timebox_minutes"}, 409), ({"field": "intent"}, 400), ({}, 400)],
)
def test_use_without_a_proposal_or_a_plan_field_is_refused(client, data, status):
    to(client, "planning")
    client.post("/planning/draft", data={"timebox_minutes": "15"})
    assert client.post("/coach/use", data=data).status_code == status
    assert state(client)["draft"]["timebox_minutes"] == "15"


def test_use_outside_planning_is_409(client):
    assert client.post("/coach/use", data={"field": "next_action"}).status_code == 409
    assert state(client)["runtime_state"] == RuntimeState.LOCKED.value


def test_while_the_coach_thinks_a_fields_first_keystroke_is_saved_at_once(gated):
    client, coach, controller = gated
    to(client, "planning")
    client.post("/coach", data={"intent": "the report"})
    coach.wait_calls(1)
    pending = parse(client.get("/").get_data(as_text=True)).by_id("coach")
    savers = {
        n.get("hx-include").split(",")[0]: n
        for n in pending.iter()
        if n.get("hx-post") == "/planning/draft"
    }
    assert sorted(savers) == ["#intent", "#next_action", "#success_condition", "#timebox_minutes"]
    for ref, node in savers.items():
        assert node.get("hx-trigger") == f"keyup changed throttle:1s from:{ref}"
        # With the version the page shows: the answer claims a new one only if it was current.
        assert node.get("hx-include") == f"{ref}, #draft_version"
        assert node.get("hx-params") == f"{ref[1:]},draft_version"
        assert node.get("hx-swap") == "none"
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    ready = parse(client.get("/").get_data(as_text=True)).by_id("coach")
    assert not [n for n in ready.iter() if n.get("hx-post") == "/planning/draft"]


# -- 0.5: what was typed while the server was away is sent again when the socket reopens --------


def test_every_draft_field_is_sent_again_when_the_pages_socket_opens(client):
    """No script of ours: each input's own htmx trigger fires on the websocket extension's
    open event (htmx:wsOpen, bubbling from #ws to body), at every (re)connect."""
    to(client, "planning")
    page = parse(client.get("/").get_data(as_text=True))
    for name in ("intent", "next_action", "success_condition", "timebox_minutes"):
        node = page.by_id(name)
        triggers = [t.strip() for t in node.get("hx-trigger").split(",")]
        assert "htmx:wsOpen from:body" in triggers, name
        params = (node.get("hx-post"), node.get("hx-params"))
        assert params == ("/planning/draft", f"{name},draft_version"), name


def test_a_resend_of_what_the_draft_holds_leaves_the_fields_open_to_the_next_proposal(gated):
    """A socket opens at every page load and after every proposal: sending the same values
    again marks no field as typed in, so the next Sharpen still fills them."""
    client, coach, controller = gated
    to(client, "planning")
    client.post("/coach", data={"intent": "the report"})
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    draft = state(client)["draft"]
    for name in ("intent", "next_action", "success_condition", "timebox_minutes"):
        assert client.post("/planning/draft", data={name: draft[name]}, headers=HX).status_code
    assert state(client)["draft"]["edited"] == []


# -- 0.5: a text field shows its count; the server refuses what is too long, never cuts it ------


@pytest.mark.parametrize(
    ("name", "limit"),
    [("intent", MAX_INTENT), ("next_action", MAX_TEXT), ("success_condition", MAX_TEXT)],
)
def test_each_text_field_takes_its_limit_and_the_page_shows_its_count(client, name, limit):
    to(client, "planning")
    client.post("/planning/draft", data={name: "x" * 12})
    page = parse(client.get("/").get_data(as_text=True))
    field = page.by_id(name)
    assert field.get("maxlength") == str(limit)  # as the server takes it
    assert f"count-{name}" in field.get("aria-describedby").split()
    assert (field.get("hx-target"), field.get("hx-swap")) == (f"#count-{name}", "innerHTML")
    assert page.by_id(f"count-{name}").text() == f"12 / {limit}"


def test_a_full_field_says_so_beside_it(client):
    to(client, "planning")
    response = client.post("/planning/draft", data={"next_action": "y" * MAX_TEXT}, headers=HX)
    assert parse(response.get_data(as_text=True)).text() == (
        f"{MAX_TEXT} / {MAX_TEXT} · full, the rest did not fit"
    )


@pytest.mark.parametrize(
    ("name", "limit", "label"),
    [
        ("intent", MAX_INTENT, "Your rough intent"),
        ("next_action", MAX_TEXT, "Next action"),
        ("success_condition", MAX_TEXT, "Done when"),
    ],
)
def test_a_paste_longer_than_a_field_takes_is_refused_whole_with_a_sentence(
    client, name, limit, label
):
    """Past the page's maxlength (a script, another client): 400, the sentence in the count's
    place, and the draft keeps what it had, never the first `limit` characters."""
    to(client, "planning")
    client.post("/planning/draft", data={name: "kept"})
    response = client.post("/planning/draft", data={name: "z" * (limit + 1)}, headers=HX)
    assert response.status_code == 400
    said = parse(response.get_data(as_text=True)).text()
    assert said == f"{label} is too long ({limit + 1} characters; at most {limit})."
    assert state(client)["draft"][name] == "kept"
    plan = {**PLAN, name: "z" * (limit + 1)} if name != "intent" else None
    if plan:  # a plan is refused the same way, nothing started
        refused = client.post("/commitment", json=plan)
        assert refused.status_code == 400 and "too long" in refused.get_json()["error"]
        assert state(client)["runtime_state"] == "planning"


def test_a_proposal_that_fills_a_field_pushes_its_count_along(gated):
    client, coach, controller = gated
    to(client, "planning")
    client.post("/coach", data={"intent": "the report"})
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    page = parse(client.get("/").get_data(as_text=True))
    assert page.by_id("count-next_action").text() == f"{len(PROPOSAL.next_action)} / {MAX_TEXT}"
    counts = {r.id: r.text() for r in prefill(client) if r.id.startswith("count-")}
    assert counts == {
        "count-next_action": f"{len(PROPOSAL.next_action)} / {MAX_TEXT}",
        "count-success_condition": f"{len(PROPOSAL.success_condition)} / {MAX_TEXT}",
    }
