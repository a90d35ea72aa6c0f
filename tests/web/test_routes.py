"""Every route through Flask's test client, over a real controller with fakes behind it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from antidrift.ai import CLITimeout, Proposal
from antidrift.core.domain import Commitment, Outcome, RuntimeState
from tests.fakes import START, FakeCoach, wait_until
from tests.support.html import parse, top_level
from tests.support.plans import PLAN
from tests.support.web import HX, state, to

ISO_WITH_OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$")
COMMITMENT_KEYS = [
    "id",
    "next_action",
    "success_condition",
    "timebox_secs",
    "started_at",
    "deadline",
    "extended_secs",
    "ran_out",
    "task",
    "enforce",
    "episodes",  # the drift guard's, each with enforced_at (see test_teeth_page)
    "day_item_id",  # the day's item it was started from (Plan it), else null
]
HISTORY_KEYS = [
    "id",
    "next_action",
    "success_condition",
    "timebox_secs",
    "started_at",
    "ended_at",
    "outcome",
    "note",
    "extended_secs",
    "actual_secs",
    "drift_count",
    "on_task_share",
    "task",
    "paused_secs",
    "away_secs",
    "written_back",
    "site",
    "episodes",
    "device_id",  # the machine it was made on (sync: 0.6)
    "device",
    "evidence",  # what the user's other machines watched for it (Guard here too: 0.6)
]


def iso(value: str) -> datetime:
    assert ISO_WITH_OFFSET.match(value), value
    parsed = datetime.fromisoformat(value)
    assert parsed.utcoffset() is not None
    return parsed


# -- GET ----------------------------------------------------------------------------------------


def test_state_while_locked_has_exactly_the_documented_keys(client):
    body = state(client)
    keys = ["runtime_state", "commitment", "evidence", "calendar", "break", "elsewhere"]
    assert list(body) == [*keys, "following", "next_up"]
    assert body == {
        "runtime_state": "locked",
        "commitment": None,
        "evidence": {"health": "unavailable", "last": None},
        "calendar": {"now": None, "next": None},
        "break": None,
        "elsewhere": [],  # 0.6: what runs on the user's other machines (sync)
        "following": None,  # 0.6: one of theirs guarded here (Guard here too)
        "next_up": None,  # 0.6: locked, the day's first item (the status line's "next up")
    }


def test_state_while_planning_adds_an_idle_coach(client):
    to(client, "planning")
    body = state(client)
    assert list(body) == [
        "runtime_state",
        "commitment",
        "evidence",
        "coach",
        "draft",
        "calendar",
        "break",
        "elsewhere",
        "following",
        "next_up",
    ]
    assert body["commitment"] is None
    assert body["coach"] == {"status": "idle"}
    assert body["draft"] == {
        "intent": "",
        "next_action": "",
        "success_condition": "",
        "timebox_minutes": "25",
        "edited": [],
        "task": None,
        "draft_version": 0,  # 0.6: one more with each saved change (Start sends it)
    }


def test_state_while_active_has_the_commitment_with_iso_times(client, clock):
    to(client, "active")
    body = state(client)
    assert "coach" not in body
    c = body["commitment"]
    assert list(c) == COMMITMENT_KEYS
    assert (c["next_action"], c["success_condition"], c["timebox_secs"]) == (
        "Write the intro",
        "Intro in the doc",
        1200,
    )
    assert iso(c["started_at"]) == START
    assert iso(c["deadline"]) == START + timedelta(minutes=20)
    assert re.fullmatch(r"[0-9a-f-]{36}", c["id"])


def test_state_evidence_last_is_shaped_as_documented(client, clock):
    to(client, "active")
    clock.advance(2)
    assert (
        client.post("/evidence/window", json={"app": "code", "title": "main.py"}).status_code == 202
    )
    evidence = state(client)["evidence"]
    assert list(evidence) == ["health", "last"]
    assert evidence["health"] == "healthy"
    assert list(evidence["last"]) == ["app", "title", "site", "at"]
    assert evidence["last"]["app"] == "code" and evidence["last"]["title"] == "main.py"
    assert iso(evidence["last"]["at"]) == START + timedelta(seconds=2)
    clock.advance(31)
    assert state(client)["evidence"]["health"] == "stale"


def test_history_lists_ended_commitments_newest_first_with_every_field(client, clock):
    for i, outcome in enumerate(["met", "missed"]):
        to(client, "planning")
        client.post("/commitment", json={**PLAN, "next_action": f"Task {i}"})
        clock.advance(90)
        client.post("/finish")
        client.post("/end", json={"outcome": outcome, "note": f" note {i} "})
        clock.advance(5)
    items = client.get("/history").get_json()
    assert [i["next_action"] for i in items] == ["Task 1", "Task 0"]
    first = items[0]
    assert list(first) == HISTORY_KEYS
    assert (first["outcome"], first["note"], first["timebox_secs"]) == ("missed", "note 1", 1200)
    assert iso(first["ended_at"]) - iso(first["started_at"]) == timedelta(seconds=90)
    assert first["actual_secs"] == 90
    assert first["id"] != items[1]["id"]


def test_history_is_an_empty_list_at_first(client):
    response = client.get("/history")
    assert response.status_code == 200 and response.get_json() == []


def test_the_page_renders_for_the_current_state(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert parse(response.get_data(as_text=True)).by_id("view").get("data-state") == "locked"


# -- transitions: JSON and form -----------------------------------------------------------------


def test_the_whole_loop_over_json(client):
    assert client.post("/planning", json={}).get_json()["runtime_state"] == "planning"
    body = client.post("/commitment", json={**PLAN, "timebox_minutes": 20}).get_json()
    assert body["runtime_state"] == "active" and body["commitment"]["timebox_secs"] == 1200
    assert client.post("/finish", json={}).get_json()["runtime_state"] == "review"
    body = client.post("/end", json={"outcome": "met", "note": "done"}).get_json()
    assert body == {
        "runtime_state": "locked",
        "commitment": None,
        "evidence": {"health": "unavailable", "last": None},
        "calendar": {"now": None, "next": None},
        "break": None,
        "elsewhere": [],
        "following": None,
        "next_up": None,
    }
    [item] = client.get("/history").get_json()
    assert (item["outcome"], item["note"]) == ("met", "done")


def test_the_whole_loop_over_forms(client):
    assert client.post("/planning").status_code == 200
    response = client.post("/commitment", data=PLAN)
    assert response.status_code == 200
    assert response.get_json()["commitment"]["next_action"] == "Write the intro"
    assert client.post("/finish").status_code == 200
    assert client.post("/end", data={"outcome": "missed"}).get_json()["runtime_state"] == "locked"
    assert client.get("/history").get_json()[0]["note"] == ""


def test_cancel_planning_goes_back_to_locked(client):
    to(client, "planning")
    assert client.post("/planning/cancel").get_json()["runtime_state"] == "locked"


def test_an_htmx_request_gets_an_empty_html_answer(client):
    response = client.post("/planning", headers=HX)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.get_data(as_text=True) == ""
    assert state(client)["runtime_state"] == "planning"


# -- errors -------------------------------------------------------------------------------------

ILLEGAL = [
    ("locked", "/planning/cancel", None),
    ("locked", "/commitment", PLAN),
    ("locked", "/finish", None),
    ("locked", "/end", {"outcome": "met"}),
    ("planning", "/planning", None),
    ("planning", "/finish", None),
    ("planning", "/end", {"outcome": "met"}),
    ("active", "/planning", None),
    ("active", "/planning/cancel", None),
    ("active", "/commitment", PLAN),
    ("active", "/end", {"outcome": "met"}),
    ("review", "/planning", None),
    ("review", "/commitment", PLAN),
    ("review", "/finish", None),
]


@pytest.mark.parametrize(("where", "path", "data"), ILLEGAL)
def test_an_illegal_transition_is_409_and_changes_nothing(client, store, where, path, data):
    to(client, where)
    before, saves = state(client), len(store.saves)
    response = client.post(path, json=data or {})
    assert response.status_code == 409
    body = response.get_json()
    assert list(body) == ["error"] and body["error"]
    assert state(client) == before
    assert len(store.saves) == saves


BAD_PLANS = [
    ({**PLAN, "next_action": "   "}, "Next action"),
    ({**PLAN, "success_condition": ""}, "Done when is required"),
    ({**PLAN, "next_action": "x" * 501}, "too long"),
    ({**PLAN, "timebox_minutes": "0"}, "1 to 480"),
    ({**PLAN, "timebox_minutes": "481"}, "1 to 480"),
    ({**PLAN, "timebox_minutes": "ten"}, "1 to 480"),
    ({"next_action": "a", "success_condition": "b"}, "1 to 480"),
]


@pytest.mark.parametrize(("data", "words"), BAD_PLANS)
@pytest.mark.parametrize("encoding", ["form", "json"])
def test_a_bad_plan_is_400_with_a_message_and_planning_goes_on(
    client, store, data, words, encoding
):
    to(client, "planning")
    saves = len(store.saves)
    kwargs = {"data": data} if encoding == "form" else {"json": data}
    response = client.post("/commitment", **kwargs)
    assert response.status_code == 400
    assert words in response.get_json()["error"]
    assert state(client)["runtime_state"] == "planning"
    assert len(store.saves) == saves


@pytest.mark.parametrize("minutes", [True, 2.5, None, [20]])
def test_json_minutes_must_be_a_whole_number(client, minutes):
    to(client, "planning")
    response = client.post("/commitment", json={**PLAN, "timebox_minutes": minutes})
    assert response.status_code == 400
    assert state(client)["runtime_state"] == "planning"


def test_json_minutes_as_number_and_integral_float_work(client):
    to(client, "planning")
    assert client.post("/commitment", json={**PLAN, "timebox_minutes": 30.0}).status_code == 200
    assert state(client)["commitment"]["timebox_secs"] == 1800


@pytest.mark.parametrize("body", ["{not json", "[1, 2]", '"text"', "null", ""])
def test_invalid_json_is_400(client, body):
    to(client, "planning")
    response = client.post("/commitment", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"]
    assert state(client)["runtime_state"] == "planning"


def test_a_bad_review_is_400_and_review_goes_on(client):
    to(client, "review")
    for data in ({"outcome": "maybe"}, {}, {"outcome": "met", "note": "n" * 2001}):
        response = client.post("/end", json=data)
        assert response.status_code == 400, data
        assert response.get_json()["error"]
    assert state(client)["runtime_state"] == "review"
    assert client.get("/history").get_json() == []


def test_an_htmx_error_is_the_message_as_html_with_the_real_status(client):
    to(client, "planning")
    response = client.post("/commitment", data={**PLAN, "next_action": ""}, headers=HX)
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    json_message = client.post("/commitment", data={**PLAN, "next_action": ""}).get_json()["error"]
    # The message for #plan-message; the fields come along out of band (test_plan_errors.py).
    [message] = [n for n in top_level(response.get_data(as_text=True)) if not n.get("hx-swap-oob")]
    assert message.text() == json_message
    conflict = client.post("/planning", headers=HX)
    assert conflict.status_code == 409 and conflict.mimetype == "text/html"
    assert "planning" in parse(conflict.get_data(as_text=True)).text()


def test_unknown_paths_and_wrong_methods_answer_in_json(client):
    missing = client.get("/nope")
    assert missing.status_code == 404 and missing.get_json()["error"]
    wrong = client.get("/finish")
    assert wrong.status_code == 405 and wrong.get_json()["error"]


def test_a_body_over_the_limit_is_413_and_changes_nothing(client):
    to(client, "planning")
    response = client.post("/commitment", json={**PLAN, "next_action": "x" * 100_000})
    assert response.status_code == 413
    assert state(client)["runtime_state"] == "planning"


# -- the coach ----------------------------------------------------------------------------------


def test_post_coach_in_planning_is_200_and_the_state_goes_pending_then_ready(
    make_controller, make_app
):
    coach = FakeCoach(Proposal("Outline", "Five headings", 30), gated=True)
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    response = client.post("/coach", data={"intent": "the report"})
    assert response.status_code == 200
    assert response.get_json()["coach"] == {"status": "pending"}
    assert coach.wait_calls(1)[0].intent == "the report"
    coach.release()
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    assert state(client)["coach"] == {
        "status": "ready",
        "proposal": {
            "next_action": "Outline",
            "success_condition": "Five headings",
            "timebox_secs": 1800,
        },
    }


def test_post_coach_with_json_works_too(client, fake_coach):
    to(client, "planning")
    assert client.post("/coach", json={"intent": "the report"}).status_code == 200
    wait_until(lambda: state(client)["coach"]["status"] == "ready")
    assert fake_coach.intents == ["the report"]


def test_a_coach_error_shows_in_the_state(make_controller, make_app):
    coach = FakeCoach(CLITimeout(60))
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", json={"intent": "x"})
    wait_until(lambda: state(client)["coach"]["status"] == "error")
    assert state(client)["coach"] == {"status": "error", "error": "the coach took longer than 60 s"}


@pytest.mark.parametrize("where", ["locked", "active", "review"])
def test_post_coach_outside_planning_is_400_and_nothing_runs(client, fake_coach, where):
    to(client, where)
    before = state(client)
    response = client.post("/coach", json={"intent": "x"})
    assert response.status_code == 400
    assert "planning" in response.get_json()["error"]
    assert client.post("/coach/cancel").status_code == 409  # an illegal transition
    assert state(client) == before
    assert fake_coach.calls == []


@pytest.mark.parametrize("body", ["{not json", "[]", '"intent"'])
def test_post_coach_with_invalid_json_is_400(client, fake_coach, body):
    to(client, "planning")
    response = client.post("/coach", data=body, content_type="application/json")
    assert response.status_code == 400
    assert state(client)["coach"] == {"status": "idle"}
    assert fake_coach.calls == []


@pytest.mark.parametrize("intent", ["", "   ", "i" * 2001])
def test_a_bad_intent_is_400_with_a_message(client, fake_coach, intent):
    to(client, "planning")
    response = client.post("/coach", data={"intent": intent})
    assert response.status_code == 400
    assert "intent" in response.get_json()["error"]
    assert state(client)["coach"] == {"status": "idle"}
    assert fake_coach.calls == []


def test_without_a_coach_post_coach_is_200_and_the_state_says_unavailable(
    make_controller, make_app
):
    controller = make_controller(None, coach_unavailable="coach unavailable — install claude")
    client = make_app(controller, None).test_client()
    to(client, "planning")
    response = client.post("/coach", data={"intent": "the report"})
    assert response.status_code == 200
    coach = state(client)["coach"]
    assert coach["status"] == "error"
    assert coach["error"].startswith("coach unavailable")
    assert client.post("/commitment", data=PLAN).status_code == 200  # manual planning works


def test_coach_cancel_goes_back_to_idle(make_controller, make_app):
    coach = FakeCoach(gated=True)
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"})
    [call] = coach.wait_calls(1)
    response = client.post("/coach/cancel")
    assert response.status_code == 200
    assert response.get_json()["coach"] == {"status": "idle"}
    assert call.scope.cancelled


def test_stop_coach_on_the_page_says_what_happened_and_what_to_do(make_controller, make_app):
    coach = FakeCoach(gated=True)
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"}, headers=HX)
    coach.wait_calls(1)
    response = client.post("/coach/cancel", headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    said, sharpen = top_level(html)
    # In the intent's message slot (the button's hx-target): plainly, and the two ways on.
    assert said.text() == "Coach stopped: plan by hand below, or Sharpen again."
    assert "hx-swap-oob" not in said.attrs
    # Sharpen, focused, out of band: Stop coach has gone with the pending line.
    assert sharpen.id == "sharpen" and sharpen.get("hx-swap-oob") == "true"
    assert "autofocus" in sharpen.attrs
    page = parse(client.get("/").get_data(as_text=True))
    assert page.find_all("button", hx_post="/coach/cancel") == []
    assert "Say roughly what you mean" in page.by_id("coach").text()


# -- evidence -----------------------------------------------------------------------------------


def test_evidence_window_is_202_and_recorded_while_active(client, store):
    to(client, "active")
    response = client.post("/evidence/window", json={"app": "firefox", "title": "Docs"})
    assert response.status_code == 202
    assert response.get_json() == {"recorded": True}
    cid = state(client)["commitment"]["id"]
    assert [(s.app, s.title) for s in store.samples(cid)] == [("firefox", "Docs")]


def test_evidence_window_outside_active_is_202_and_dropped(client, store):
    response = client.post("/evidence/window", json={"app": "firefox", "title": "Docs"})
    assert response.status_code == 202
    assert response.get_json() == {"recorded": False}
    assert store.sample_rows == []


def test_evidence_window_as_a_form_works(client):
    to(client, "active")
    assert client.post("/evidence/window", data={"app": "code"}).get_json() == {"recorded": True}
    assert state(client)["evidence"]["last"]["title"] == ""


@pytest.mark.parametrize("body", [{}, {"app": ""}, {"app": "a", "title": "x\x00y"}, {"app": 5}])
def test_evidence_window_with_bad_input_is_400(client, store, body):
    to(client, "active")
    response = client.post("/evidence/window", json=body)
    assert response.status_code == 400
    assert response.get_json()["error"]
    assert store.sample_rows == []


def test_a_restarted_review_can_still_be_ended(make_controller, make_app, store, clock):
    c = Commitment("c-1", "Write", "Done", 600, START, START + timedelta(minutes=10))
    store.save(RuntimeState.ACTIVE, c)
    clock.advance(3600)
    controller = make_controller(FakeCoach())
    controller.start()  # as Runtime.start does
    client = make_app(controller).test_client()
    assert state(client)["runtime_state"] == "review"
    assert client.post("/end", json={"outcome": "met"}).status_code == 200
    [item] = client.get("/history").get_json()
    assert item["id"] == "c-1" and item["outcome"] == Outcome.MET.value
    assert iso(item["ended_at"]) == c.deadline


# -- wall-clock jumps, through the HTTP answers ------------------------------------------------


def test_a_wall_clock_jump_back_shows_no_inflated_or_negative_figure_anywhere(client, clock):
    client.post("/planning")
    body = {"next_action": "Write", "success_condition": "Done", "timebox_minutes": 2}
    assert client.post("/commitment", json=body).status_code == 200
    clock.advance(10)
    clock.jump_wall(-3600)
    assert client.get("/state").get_json()["runtime_state"] == "active"
    page = client.get("/").get_data(as_text=True)
    assert "01:50" in page and "1:01:" not in page  # the time left, not 1:01:50 of 2 min
    assert client.post("/finish").status_code == 200
    assert client.post("/end", json={"outcome": "met"}).status_code == 200
    (row,) = client.get("/history").get_json()
    assert row["actual_secs"] == 10
    assert row["ended_at"] > row["started_at"]


def test_a_wall_clock_jump_forward_does_not_end_the_timebox(client, clock, controller):
    client.post("/planning")
    body = {"next_action": "Write", "success_condition": "Done", "timebox_minutes": 30}
    client.post("/commitment", json=body)
    clock.advance(1)
    clock.jump_wall(3600)
    controller.expire_if_due()  # what the ticker does every second
    assert client.get("/state").get_json()["runtime_state"] == "active"
    assert "29:59" in client.get("/").get_data(as_text=True)
