"""The page and its partials, checked structurally: ids, inputs, labels, no custom script."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from antidrift.ai import Proposal
from antidrift.server.app import resource_dir
from antidrift.web.render import clock_text, duration_text
from antidrift.web.views import Shows
from tests.fakes import FakeCoach, wait_until
from tests.support.html import Node, parse, top_level
from tests.support.web import to

PLAN_INPUTS = ("next_action", "success_condition", "timebox_minutes")
EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def page(client) -> Node:
    response = client.get("/")
    assert response.status_code == 200
    return parse(response.get_data(as_text=True))


def renderer(app):
    return app.extensions["antidrift.renderer"]


def fragment(app, name: str) -> str:
    """A widget (or the prefill) as a push renders it: from its view model alone."""
    snap = app.extensions["antidrift.runtime"].controller.snapshot()
    widgets = {w.name: w for w in app.extensions["antidrift.views"].widgets(snap)}
    if name == "prefill":
        return renderer(app).prefill(widgets["coach"], Shows.of(snap))
    return renderer(app).widget(widgets[name], widgets)


def ws_query(tree: Node) -> dict[str, str]:
    ws = tree.by_id("ws")
    assert ws is not None, "the page needs its socket element"
    url = urlsplit(ws.get("ws-connect"))
    assert url.path == "/ws"
    return {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}


def assert_no_custom_script(tree: Node) -> None:
    scripts = tree.find_all("script")
    srcs = [s.get("src") for s in scripts]
    assert len(srcs) == 2, srcs
    assert re.fullmatch(r"/static/vendor/htmx-[\d.]+\.min\.js", srcs[0])
    assert re.fullmatch(r"/static/vendor/ws-[\d.]+\.min\.js", srcs[1])
    for script in scripts:
        assert script.text() == "", "no inline script"
        assert (resource_dir("static") / Path(script.get("src")).relative_to("/static")).is_file()
    for node in tree.iter():
        handlers = [a for a in node.attrs if a.lower().startswith("on")]
        assert handlers == [], (node.tag, handlers)
        for name in ("href", "src", "action", "hx-post", "hx-get"):
            value = node.get(name) or ""
            assert not value.strip().lower().startswith("javascript:")


def assert_every_field_is_labelled(tree: Node) -> None:
    labels = {label.get("for") for label in tree.find_all("label")}
    for field in tree.find_all("input") + tree.find_all("textarea") + tree.find_all("select"):
        if field.get("type") in ("hidden", "submit", "button"):
            continue
        assert field.id, f"{field.tag} without an id"
        assert field.id in labels, f"#{field.id} has no label"


# -- each state ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["locked", "planning", "active", "review"])
def test_every_state_renders_its_view_with_the_socket_and_no_custom_script(client, where):
    to(client, where)
    tree = page(client)
    view = tree.by_id("view")
    assert view.tag == "main" and view.get("data-state") == where
    assert tree.find_all("body")[0].get("hx-ext") == "ws"
    assert ws_query(tree)["view"] == where
    assert_no_custom_script(tree)
    assert_every_field_is_labelled(tree)
    ids = [n.id for n in tree.iter() if n.id]
    assert len(ids) == len(set(ids)), "ids must be unique"


def test_locked_offers_plan_and_shows_history(client, clock):
    to(client, "review")
    clock.advance(60)
    client.post("/end", data={"outcome": "met", "note": "went well"})
    tree = page(client)
    assert tree.find_all("button", hx_post="/planning")
    history = tree.find_all("li")
    assert len(history) == 1
    assert "Write the intro" in history[0].text() and "went well" in history[0].text()


def test_planning_has_the_intent_box_sharpen_the_coach_and_the_three_inputs(client):
    to(client, "planning")
    tree = page(client)
    for ident in ("intent", *PLAN_INPUTS):
        field = tree.by_id(ident)
        assert field is not None and field.tag in ("input", "textarea"), ident
        assert field.get("name") == ident
    assert tree.by_id("timebox_minutes").get("type") == "number"
    assert tree.by_id("success_condition").tag == "textarea"  # the coach's answers are long
    coach = tree.by_id("coach")
    assert coach.get("data-status") == "idle"
    assert coach.get("aria-live") == "polite"
    # Sharpen: the intent box sits in a form that posts to /coach, so Enter sharpens too.
    [form] = [f for f in tree.find_all("form") if f.get("hx-post") == "/coach"]
    assert form.by_id("intent") is not None
    assert form.find_all("button", type="submit")
    assert "Sharpen" in form.text()
    [plan] = [f for f in tree.find_all("form") if f.get("hx-post") == "/commitment"]
    assert all(plan.by_id(i) is not None for i in PLAN_INPUTS)
    assert plan.by_id("intent") is None
    assert "Coach: fake" in coach.text()


def test_pending_coach_shows_elapsed_seconds_and_a_cancel_button(make_controller, make_app, clock):
    coach = FakeCoach(gated=True)
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"})
    coach.wait_calls(1)
    clock.advance(3)
    tree = page(client)
    node = tree.by_id("coach")
    assert node.get("data-status") == "pending"
    assert node.by_id("coach-elapsed").text() == "3 s"
    assert node.find_all("button", hx_post="/coach/cancel")
    assert node.fields() == []


def test_a_ready_proposal_fills_the_inputs_on_a_fresh_page(make_controller, make_app):
    coach = FakeCoach(Proposal("Outline the report", "Five headings", 35))
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "report"})
    wait_until(lambda: client.get("/state").get_json()["coach"]["status"] == "ready")
    tree = page(client)
    assert tree.by_id("coach").get("data-status") == "ready"
    assert tree.by_id("next_action").value() == "Outline the report"
    assert tree.by_id("success_condition").value() == "Five headings"
    assert tree.by_id("timebox_minutes").value() == "35"
    assert tree.by_id("intent").get("value") == "report"  # the draft: what was typed, kept
    # The socket URL records the applied proposal, so the first push does not fill again.
    proposal_id = client.application.extensions["antidrift.runtime"].controller.snapshot()
    assert ws_query(tree)["p"] == proposal_id.coach.proposal_id


def test_coach_unavailable_explains_itself_and_planning_still_works(make_controller, make_app):
    controller = make_controller(None, coach_unavailable="coach unavailable — fix it")
    client = make_app(controller, None).test_client()
    to(client, "planning")
    coach = page(client).by_id("coach")
    assert "No AI coach" in coach.text()
    assert "You can plan by hand" in coach.text()
    client.post("/coach", data={"intent": "x"})
    coach = page(client).by_id("coach")
    assert coach.get("data-status") == "error"
    assert "Coach unavailable — fix it" in coach.text()
    assert coach.text().count("plan by hand") == 1  # said once, beside the error


def test_active_shows_time_left_evidence_and_finish(client, clock):
    to(client, "active")
    clock.advance(65)
    tree = page(client)
    assert "18:55" in tree.by_id("time-left").text()
    evidence = tree.by_id("evidence")
    assert evidence.get("data-health") == "unavailable"
    assert "commitment goes on" in evidence.text()
    assert tree.find_all("button", hx_post="/finish")
    assert [f.id for f in tree.fields()] == ["edit-next_action"]  # in its closed editor
    client.post("/evidence/window", json={"app": "code", "title": "main.py"})
    evidence = page(client).by_id("evidence")
    assert evidence.get("data-health") == "healthy"
    assert "code" in evidence.text() and "main.py" in evidence.text()


def test_the_countdown_is_a_named_timer_carrying_the_seconds_left_for_the_css_clock(client, clock):
    """The stylesheet counts down from data-left (offline too); the bar measures data-span."""
    to(client, "active")
    clock.advance(65)
    widget = page(client).by_id("time-left")
    assert widget.get("data-left") == str(20 * 60 - 65)
    assert widget.get("data-span") == str(20 * 60)
    [timer] = [n for n in widget.find_all("span") if n.get("role") == "timer"]
    assert timer.get("aria-label") == "Time left"
    assert timer.text().strip() == "18:55"


def test_review_shows_the_time_share_per_app_and_title(client, clock):
    to(client, "active")
    client.post("/evidence/window", json={"app": "code", "title": "main.py"})
    clock.advance(30)
    client.post("/evidence/window", json={"app": "firefox", "title": "Docs"})
    clock.advance(10)
    client.post("/finish")
    tree = page(client)
    rows = [
        [td.text() for td in tr.find_all("td")] for tr in tree.find_all("tbody")[0].find_all("tr")
    ]
    # One cell names the window (the app, then its title); no guard here: no mark.
    assert [r[:2] for r in rows] == [["code — main.py", "30 s"], ["firefox — Docs", "10 s"]]
    assert rows[0][2].endswith("75%") and rows[1][2].endswith("25%")
    radios = {r.get("value") for r in tree.find_all("input", type="radio")}
    assert radios == {"met", "missed"}
    assert all(r.get("name") == "outcome" for r in tree.find_all("input", type="radio"))
    assert tree.by_id("note").tag == "textarea"
    assert [f.get("hx-post") for f in tree.find_all("form")] == ["/end"]


def test_review_without_samples_says_so(client):
    to(client, "review")
    tree = page(client)
    assert tree.find_all("table") == []
    assert "No focus evidence" in tree.by_id("view").text()


# -- escaping -----------------------------------------------------------------------------------


def test_ai_text_with_markup_is_escaped_in_the_page_and_the_inputs(make_controller, make_app):
    coach = FakeCoach(Proposal(EVIL, EVIL, 10))
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"})
    wait_until(lambda: client.get("/state").get_json()["coach"]["status"] == "ready")
    html = client.get("/").get_data(as_text=True)
    assert "<script>alert" not in html
    tree = parse(html)
    assert_no_custom_script(tree)
    assert tree.find_all("img") == []
    assert tree.by_id("next_action").value() == EVIL  # the text survives, inert
    prefill = fragment(client.application, "prefill")
    assert "<script" not in prefill and parse(prefill).find_all("img") == []


def test_coach_error_text_is_escaped(make_controller, make_app):
    from antidrift.ai import CoachError

    coach = FakeCoach(CoachError(EVIL))
    client = make_app(make_controller(coach), coach).test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"})
    wait_until(lambda: client.get("/state").get_json()["coach"]["status"] == "error")
    tree = page(client)
    assert tree.by_id("coach").find_all("script") == []
    assert tree.by_id("coach").find_all("img") == []
    assert "alert" in tree.by_id("coach").text()


def test_user_text_and_window_titles_are_escaped_everywhere(client, clock):
    client.post("/planning")
    client.post(
        "/commitment", data={"next_action": EVIL, "success_condition": EVIL, "timebox_minutes": "5"}
    )
    client.post("/evidence/window", json={"app": EVIL, "title": EVIL})
    for _ in range(3):
        tree = page(client)
        assert tree.find_all("img") == [] and len(tree.find_all("script")) == 2
        clock.advance(30)
        if client.get("/state").get_json()["runtime_state"] == "active":
            client.post("/finish")
        else:
            client.post("/end", data={"outcome": "met", "note": EVIL})


def test_the_error_fragment_escapes_its_message(app):
    with app.app_context():
        html = renderer(app).error(EVIL)
    assert "<script" not in html and parse(html).find_all("img") == []


# -- widgets: one root, one id ------------------------------------------------------------------

WIDGETS = {
    "planning": {"coach": "coach", "coach_elapsed": "coach-elapsed"},
    "active": {
        "phase": "phase",
        "time_left": "time-left",
        "evidence": "evidence",
        "drift_guard": "drift-guard",
        "drift_banner": "drift-banner",
    },
}


@pytest.mark.parametrize(
    ("where", "name", "ident"), [(w, n, i) for w, m in WIDGETS.items() for n, i in m.items()]
)
def test_each_pushed_widget_is_one_root_element_with_its_id(client, app, where, name, ident):
    to(client, where)
    roots = top_level(fragment(app, name))
    assert [r.id for r in roots] == [ident]
    assert roots[0].fields() == []


def test_the_prefill_fragment_is_the_three_inputs_and_the_socket_never_the_intent(
    make_controller, make_app
):
    coach = FakeCoach()
    app = make_app(make_controller(coach), coach)
    client = app.test_client()
    to(client, "planning")
    client.post("/coach", data={"intent": "x"})
    wait_until(lambda: client.get("/state").get_json()["coach"]["status"] == "ready")
    snap = app.extensions["antidrift.runtime"].controller.snapshot()
    roots = top_level(fragment(app, "prefill"))
    inputs = [r.id for r in roots if r.tag in ("input", "textarea")]
    assert inputs == list(PLAN_INPUTS)
    assert roots[-1].id == "ws" and f"p={snap.coach.proposal_id}" in roots[-1].get("ws-connect")
    assert all(r.id for r in roots), "every top-level element needs an id to be swapped"
    assert "intent" not in {n.id for r in roots for n in r.iter()}


# -- formatting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "00:00"), (59, "00:59"), (61, "01:01"), (3600, "1:00:00"), (-5, "00:00")],
)
def test_clock_text(seconds, text):
    assert clock_text(seconds) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (0.3, "<1 s"),
        (0.6, "<1 s"),
        (12, "12 s"),
        (59.6, "59 s"),  # under a minute: seconds, rounded down as minutes are
        (90, "1 min"),  # one rule everywhere: whole minutes rounded down
        (150, "2 min"),
        (3600, "1 h 00 min"),
        (5400, "1 h 30 min"),
    ],
)
def test_duration_text(seconds, text):
    assert duration_text(seconds) == text


def test_history_shows_time_spent(client, clock):
    to(client, "active")
    clock.advance(timedelta(minutes=12))
    client.post("/finish")
    client.post("/end", data={"outcome": "missed"})
    item = page(client).find_all("li")[0]
    assert "12 min taken" in item.text() and "20 min planned" in item.text()


def test_a_missing_command_cli_points_to_settings_and_names_no_variable(
    tmp_path, controller, store, clock
):
    from antidrift.ai import CommandBackend
    from antidrift.server.app import create_app
    from antidrift.server.bootstrap import Runtime
    from antidrift.session.snapshot import CoachInfo
    from antidrift.settings import Settings

    info = CoachInfo("command", None, CommandBackend("surely-not-installed-xyz -m x"))
    runtime = Runtime(controller, store, clock, info)
    app = create_app(Settings(data_dir=tmp_path), runtime=runtime)
    controller.enter_planning()
    page = app.test_client().get("/").get_data(as_text=True)
    assert "ANTIDRIFT_" not in page
    assert "command is not installed" in page and 'href="/settings"' in page
    assert page.count("plan by hand") == 1
