"""Standing rules over HTTP: listed, added (201), replaced, removed; the partial for htmx, the
page and redirects for a plain browser, JSON for others; bad input changes nothing."""

from __future__ import annotations

import pytest

from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import DriftInfo
from antidrift.settings import Settings
from tests.fakes import coach_info_for
from tests.support.html import parse

HTMX_RULES = {"HX-Request": "true", "HX-Target": "rules"}
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def client(make_controller, judge, store, clock, tmp_path):
    controller = make_controller(judge=judge)
    runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=DriftInfo(True))
    return create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()


def rules(client) -> list[dict]:
    return client.get("/rules").get_json()


def test_a_rule_is_added_listed_and_removed(client):
    assert rules(client) == []
    response = client.post("/rules", json={"app": "firefox", "verdict": "on_task"})
    assert response.status_code == 201
    rule = response.get_json()
    assert rule == {
        "id": rule["id"],
        "app": "firefox",
        "title_contains": "",
        "verdict": "on_task",
        "site": "",
    }
    other = client.post(
        "/rules", json={"app": "firefox", "title_contains": "YouTube", "verdict": "off_task"}
    ).get_json()
    assert rules(client) == [rule, other]
    response = client.post(f"/rules/{rule['id']}/delete")
    assert (response.status_code, response.get_json()) == (200, {"deleted": rule["id"]})
    assert rules(client) == [other]


def test_adding_the_same_app_and_text_again_edits_the_rule(client):
    client.post(
        "/rules", json={"app": "firefox", "title_contains": "YouTube", "verdict": "off_task"}
    )
    client.post(
        "/rules", data={"app": "Firefox", "title_contains": "youtube", "verdict": "on_task"}
    )
    (only,) = rules(client)
    assert (only["app"], only["title_contains"], only["verdict"]) == (
        "Firefox",
        "youtube",
        "on_task",
    )


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"verdict": "on_task"}, "Name the app"),
        ({"app": "  ", "verdict": "on_task"}, "Name the app"),
        ({"app": "firefox", "verdict": "unclear"}, "on_task or off_task"),
        ({"app": "firefox"}, "on_task or off_task"),
        ({"app": "x" * 201, "verdict": "on_task"}, "at most 200"),
        ({"app": "firefox", "title_contains": "y" * 201, "verdict": "on_task"}, "at most 200"),
        ({"app": "firefox", "title_contains": ["a"], "verdict": "on_task"}, "must be text"),
        ({"app": 5, "verdict": "on_task"}, "Name the app"),
    ],
)
def test_a_bad_rule_is_a_400_with_a_sentence_and_nothing_is_kept(client, body, fields):
    response = client.post("/rules", json=body)
    assert response.status_code == 400
    assert fields in response.get_json()["error"]
    assert rules(client) == []


@pytest.mark.parametrize("rule_id", ["999", "0", "abc", "-1", "9" * 30, "1.0"])
def test_removing_a_rule_that_is_not_there_is_a_404_and_changes_nothing(client, rule_id):
    client.post("/rules", json={"app": "code", "verdict": "on_task"})
    before = rules(client)
    response = client.post(f"/rules/{rule_id}/delete")
    assert response.status_code == 404
    assert "no such rule" in response.get_json()["error"]
    assert rules(client) == before


def test_htmx_from_the_partial_gets_the_partial_back_with_the_rule_and_a_sentence(client):
    response = client.post(
        "/rules", data={"app": "slack", "verdict": "off_task"}, headers=HTMX_RULES
    )
    assert response.status_code == 201
    section = parse(response.get_data(as_text=True)).by_id("rules")
    assert section is not None and section.tag == "section"
    assert "From now on, slack is always off task." in section.by_id("rules-message").text()
    (item,) = section.find_all("li", class_="rule rule-off_task")
    assert "slack" in item.text() and "off task" in item.text()
    assert section.by_id("rule-app").get("value") == "", "the form is empty for the next rule"
    (remove,) = [f for f in item.find_all("form") if "delete" in f.get("hx-post")]
    response = client.post(remove.get("hx-post"), headers=HTMX_RULES)
    section = parse(response.get_data(as_text=True)).by_id("rules")
    assert "Removed: slack is always off task." in section.text()
    assert section.find_all("li", class_="rule rule-off_task") == []
    assert rules(client) == []


def test_htmx_with_a_bad_rule_keeps_what_was_typed_and_marks_the_field(client):
    response = client.post(
        "/rules",
        data={"app": "", "title_contains": "<b>YouTube</b>", "verdict": "off_task"},
        headers=HTMX_RULES,
    )
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    section = parse(html).by_id("rules")
    assert section.by_id("rule-app").get("aria-invalid") == "true"
    assert section.by_id("rule-title").get("value") == "<b>YouTube</b>"
    assert "<b>YouTube" not in html, "typed text is escaped"
    assert "checked" in section.by_id("rule-off").attrs
    assert "checked" not in section.by_id("rule-on").attrs
    assert "Name the app" in section.by_id("rules-message").text()
    assert rules(client) == []


def test_a_browser_gets_the_rules_page_and_a_plain_form_comes_back_to_it(client):
    client.post("/rules", json={"app": "code", "title_contains": "notes", "verdict": "on_task"})
    page = parse(client.get("/rules", headers=BROWSER).get_data(as_text=True))
    assert page.by_id("rules") is not None and page.find_all("h1")
    assert "notes" in page.by_id("rules").text()
    response = client.post(
        "/rules", data={"app": "steam", "verdict": "off_task", "back": "/settings"}, headers=BROWSER
    )
    assert (response.status_code, response.headers["Location"]) == (303, "/settings")
    response = client.post(
        "/rules",
        data={"app": "dota", "verdict": "off_task", "back": "https://evil.example/"},
        headers=BROWSER,
    )
    assert response.headers["Location"] == "/rules", "back goes nowhere but our own pages"
    refused = client.post("/rules", data={"app": "", "verdict": "on_task"}, headers=BROWSER)
    assert refused.status_code == 400
    assert parse(refused.get_data(as_text=True)).by_id("rule-app").get("aria-invalid") == "true"
    assert [r["app"] for r in rules(client)] == ["code", "steam", "dota"]
