"""The judge on the page: "always on task" from the banner, rules that decide with no call,
unclear shown as such and never a nudge, and the review's "what decided, what was sent"."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from antidrift.drift.policy import DriftSettings
from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import DriftInfo
from antidrift.settings import Settings
from tests.fakes import FakeJudge, RecordingNotifier, coach_info_for, wait_until
from tests.support.html import parse
from tests.support.plans import PLAN

NOW = DriftSettings(timedelta(0), timedelta(0), 30)
HTMX = {"HX-Request": "true"}


@pytest.fixture
def page(make_controller, store, clock, tmp_path):
    def make(judge: FakeJudge, info: DriftInfo | None = None, **kwargs):
        notifier = RecordingNotifier()
        controller = make_controller(judge=judge, notifier=notifier, drift=NOW, **kwargs)
        info = info or DriftInfo(True, "fakejudge")
        runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
        client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
        client.post("/planning")
        client.post("/commitment", data=PLAN)
        return controller, client, notifier

    return make


def status(client) -> dict:
    return client.get("/state").get_json()["drift"]


def see(controller, client, app: str, title: str, expect: str) -> None:
    client.post("/evidence/window", json={"app": app, "title": title})
    wait_until(lambda: controller.snapshot().drift.status.value == expect, message=expect)
    controller.drift_tick()


def test_always_on_task_from_the_banner_is_a_rule_for_the_title_that_ends_the_episode(page):
    judge = FakeJudge({"code"})
    controller, client, _ = page(judge)
    see(controller, client, "firefox", "Cat videos", "drifting")
    banner = parse(client.get("/").get_data(as_text=True)).by_id("drift")
    always = banner.find_all("button")[2]
    assert always.text().strip() == "This title is always on task"
    assert always.get("hx-post") == "/rules"
    rule = {"app": "firefox", "title_contains": "Cat videos", "verdict": "on_task"}
    assert json.loads(always.get("hx-vals")) == rule
    response = client.post("/rules", data=json.loads(always.get("hx-vals")), headers=HTMX)
    assert response.status_code == 201
    said = parse(response.get_data(as_text=True)).elements[0]
    assert said.text() == "From now on, firefox «Cat videos» is always on task."
    assert "message-ok" in said.get("class"), "a confirmation, not an error"
    assert parse(client.get("/").get_data(as_text=True)).by_id("drift") is None
    assert status(client)["status"] == "on_task"
    assert "your rule" in status(client)["reason"]
    see(controller, client, "code", "intro.md", "on_task")
    see(controller, client, "firefox", "Cat videos", "on_task")  # the rule: no call
    assert [c.title for c in judge.calls if c.app == "firefox"] == ["Cat videos"]
    see(controller, client, "firefox", "Dog videos", "drifting")  # the browser is not on task


@pytest.mark.parametrize(
    ("title", "offered"),
    [
        ("", None),  # no title: the rule is for the app
        ("(excluded)", None),  # a private title: a text rule could never match it
        ("x" * 150 + " " + "y" * 100, "x" * 150 + " " + "y" * 49),  # cut to what a rule takes
    ],
)
def test_the_banner_rule_falls_back_to_the_app_or_cuts_a_long_title(page, title, offered):
    controller, client, _ = page(FakeJudge({"code"}))
    see(controller, client, "firefox", title, "drifting")
    always = parse(client.get("/").get_data(as_text=True)).by_id("drift").find_all("button")[2]
    vals = json.loads(always.get("hx-vals"))
    assert vals["title_contains"] == (offered or "")
    words = always.text().strip()
    said = "This title" if offered else "firefox"
    assert words == f"{said} is always on task"
    assert client.post("/rules", data=vals, headers=HTMX).status_code == 201


def test_a_rule_decides_in_the_next_commitment_with_nothing_sent(page, clock):
    judge = FakeJudge({"code"})
    controller, client, notifier = page(judge)
    client.post("/rules", json={"app": "Steam", "verdict": "off_task"})
    see(controller, client, "steam", "Store", "drifting")
    assert judge.calls == [] and len(notifier.shown) == 1
    clock.advance(30)
    client.post("/finish")
    doc = parse(client.get("/").get_data(as_text=True))
    (item,) = doc.find_all("li", class_="verdict verdict-off_task verdict-by-rule")
    text = " ".join(item.text().split())
    assert "decided by your rule: Steam is always off task" in text
    assert "Nothing was sent: your rule decided." in text
    assert item.find_all("pre") == []


def test_unclear_is_shown_as_such_never_nudges_and_counts_apart(page, clock):
    judge = FakeJudge({"code"}, unclear_apps={"slack"})
    controller, client, notifier = page(judge)
    see(controller, client, "slack", "#general", "unclear")
    for _ in range(5):
        clock.advance(60)
        client.post("/evidence/window", json={"app": "slack", "title": "#general"})
        controller.drift_tick()
    assert (
        notifier.shown == []
        and parse(client.get("/").get_data(as_text=True)).by_id("drift") is None
    )
    guard = parse(client.get("/").get_data(as_text=True)).by_id("drift-guard")
    assert guard.get("data-status") == "unclear"
    assert "Unclear — no nudge for this window" in " ".join(guard.text().split())
    assert status(client) == {
        "status": "unclear",
        "since": status(client)["since"],
        "reason": "cannot tell whether slack serves it",
    }
    see(controller, client, "code", "intro.md", "on_task")
    clock.advance(100)
    client.post("/finish")
    review = parse(client.get("/").get_data(as_text=True)).find_all(
        "section", class_="drift-review"
    )
    text = " ".join(review[0].text().split())
    assert "On task 100% of the judged time" in text, "unclear time is in neither side"
    assert "5 min unclear" in text


def test_the_review_shows_exactly_what_went_where_and_what_came_back(page, clock):
    judge = FakeJudge({"code"})
    controller, client, _ = page(judge, exclude_titles=re.compile("bank", re.I))
    see(controller, client, "firefox", "Cat <i>videos</i>", "drifting")
    clock.advance(10)
    see(controller, client, "firefox", "My Bank — statement", "drifting")
    # At once off task (churn: firefox was just found off task); its own verdict follows.
    wait_until(lambda: status(client)["reason"] == "firefox does not serve it")
    clock.advance(10)
    client.post("/finish")
    html = client.get("/").get_data(as_text=True)
    items = parse(html).find_all("li", class_="verdict verdict-off_task verdict-by-judge")
    texts = [" ".join(i.text().split()) for i in items]
    assert len(texts) == 2, texts
    assert (
        "Sent to fakejudge (test model): the app “firefox” and the title “Cat <i>videos</i>”."
        in texts[0]
    )
    assert "<i>videos" not in html, "titles and answers are text, never markup"
    answer = json.loads(items[0].find_all("pre")[0].text())
    assert answer == {"verdict": "off_task", "reason": "firefox does not serve it"}
    assert "the app “firefox” alone — the title is private and was not sent" in texts[1]
    assert "Bank" not in texts[1] and "(excluded)" in texts[1]
    assert [c.title for c in judge.calls] == ["Cat <i>videos</i>", None]


def test_a_churned_title_asked_about_but_never_answered_says_what_was_sent(page, clock):
    judge = FakeJudge({"code"})
    controller, client, _ = page(judge)
    see(controller, client, "firefox", "Video 1", "drifting")
    judge.gated = True  # the next verdicts never come before the commitment ends
    client.post("/evidence/window", json={"app": "firefox", "title": "Video 2"})
    judge.wait_calls(2)
    client.post("/evidence/window", json={"app": "firefox", "title": "Video 3"})
    clock.advance(10)
    client.post("/finish")
    doc = parse(client.get("/").get_data(as_text=True))
    items = [n for n in doc.find_all("li") if "verdict" in (n.get("class") or "").split()]
    texts = {" ".join(i.text().split()) for i in items}
    asked = next(t for t in texts if "Video 2" in t)
    assert "counted off task at once" in asked
    assert "Sent to fakejudge (test model): the app “firefox” and the title “Video 2”." in asked
    assert "No answer came back" in asked
    passed_by = next(t for t in texts if "Video 3" in t)
    assert "Nothing was sent for this title" in passed_by, "one call at a time: never asked"
    assert [c.title for c in judge.calls] == ["Video 1", "Video 2"]
