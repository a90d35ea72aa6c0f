"""The drift guard on the page: the banner and its buttons, what the page discloses, review."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from antidrift.drift.policy import DriftSettings
from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import DriftInfo
from antidrift.settings import Settings
from tests.fakes import RecordingNotifier, coach_info_for, wait_until
from tests.support.html import parse
from tests.support.plans import plan

NOW = DriftSettings(timedelta(0), timedelta(0), 30)
PLAN = plan(next_action="Write the <b>intro</b>")  # shown as text, never markup


@pytest.fixture
def page(make_controller, judge, store, clock, tmp_path):
    def make(info: DriftInfo, **kwargs):
        controller = make_controller(judge=judge, notifier=RecordingNotifier(), **kwargs)
        runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
        app = create_app(Settings(data_dir=tmp_path), runtime=runtime)
        client = app.test_client()
        client.post("/planning")
        client.post("/commitment", data=PLAN)
        return controller, client

    return make


def _drifting(controller, client, title="Cat <i>videos</i>"):
    client.post("/evidence/window", json={"app": "firefox", "title": title})
    wait_until(lambda: controller.snapshot().drift.status.value == "drifting")
    controller.drift_tick()


def test_the_banner_appears_with_its_answer_buttons_and_goes_on_answer(page):
    controller, client = page(DriftInfo(True, "claude"), drift=NOW)
    doc = parse(client.get("/").get_data(as_text=True))
    assert doc.by_id("drift") is None and doc.by_id("drift-guard") is not None
    _drifting(controller, client)
    html = client.get("/").get_data(as_text=True)
    banner = parse(html).by_id("drift")
    assert banner is not None
    buttons = banner.find_all("button")
    assert [b.text().strip() for b in buttons] == [
        "Back to it",
        "This is on task",
        "This title is always on task",  # the title the line above shows: never the browser
    ]
    assert [b.get("hx-post") for b in buttons] == ["/drift/ack", "/drift/ack", "/rules"]
    assert [json.loads(b.get("hx-vals"))["answer"] for b in buttons[:2]] == ["back", "on_task"]
    assert "<i>videos" not in html and "<b>intro" not in html
    answer = client.post("/drift/ack", data={"answer": "back"}, headers={"HX-Request": "true"})
    assert parse(client.get("/").get_data(as_text=True)).by_id("drift") is None
    # The banner goes with the answer: the answer moves focus to the card's heading.
    heading = parse(answer.get_data(as_text=True)).by_id("active-title")
    assert heading is not None and heading.get("hx-swap-oob") == "true"
    assert "autofocus" in heading.attrs and "Write the <b>intro</b>" in heading.text()


def test_the_banner_is_short_and_comes_in_under_the_clock_above_the_heading(page):
    controller, client = page(DriftInfo(True, "claude"), drift=NOW)
    _drifting(controller, client, "Cat videos")
    doc = parse(client.get("/").get_data(as_text=True))
    card = next(n for n in doc.find_all("section") if n.get("aria-labelledby") == "active-title")
    # The clock keeps its place when the banner comes: nothing above it but the eyebrow.
    main = card.elements[0]
    assert [n.id for n in main.elements[:5]] == [
        "phase",
        "time-left",
        "drift-banner",
        "away-return",  # back from time away: under the clock too (empty here)
        "active-next",  # the heading, and its editor
    ]
    assert main.by_id("drift") is not None
    banner = " ".join(doc.by_id("drift").text().split())
    # The window once, the reason once, never the next action (the heading below says it).
    assert banner.count("Cat videos") == 1 and banner.count("firefox does not serve it") == 1
    assert "Write the" not in banner
    # The status line does not say the reason again beside the banner, and the dot beside the
    # window is the verdict (drifting), not the watcher's "healthy".
    line = doc.by_id("drift-guard").text()
    assert "Looks off task" in line and "firefox does not serve it" not in line
    assert doc.by_id("evidence").get("data-judged") == "drifting"
    client.post("/drift/ack", data={"answer": "on_task"})
    doc = parse(client.get("/").get_data(as_text=True))
    assert doc.by_id("drift") is None and "hidden" in doc.by_id("drift-banner").attrs
    assert doc.by_id("evidence").get("data-judged") == "on_task"


def test_a_quiet_watcher_shows_no_healthy_dot_and_no_stale_verdict(page, clock):
    controller, client = page(DriftInfo(True, "claude"), drift=NOW)
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    wait_until(lambda: controller.snapshot().drift.status.value == "on_task")
    doc = parse(client.get("/").get_data(as_text=True))
    assert doc.by_id("evidence").get("data-judged") == "on_task"
    assert "On task" in doc.by_id("drift-guard").text()
    clock.advance(120)  # no window for two minutes: the watcher has gone quiet
    doc = parse(client.get("/").get_data(as_text=True))
    evidence = doc.by_id("evidence")
    assert "gone quiet" in evidence.text() and "evidence-stale" in evidence.get("class")
    # The dot in the amber box is the watcher's, not the last verdict's green.
    assert evidence.get("data-judged") == ""
    guard = doc.by_id("drift-guard")
    line = " ".join(guard.find_all("p", class_="drift-line")[0].text().split())
    assert line == "Not judged while the window watcher is quiet"
    assert "drift-quiet" in guard.get("class") and "drift-on_task" not in guard.get("class")
    assert guard.get("data-status") == "on_task"  # the guard's own state is unchanged
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    doc = parse(client.get("/").get_data(as_text=True))  # windows again: the verdict is said
    assert doc.by_id("evidence").get("data-judged") == "on_task"
    assert "On task" in doc.by_id("drift-guard").text()


def test_the_page_says_the_guard_is_on_which_cli_judges_and_that_titles_go_to_it(page):
    controller, client = page(DriftInfo(True, "codex", titles_excluded=True), drift=NOW)
    text = parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text()
    assert "Drift guard on — codex checks each new window" in text
    assert "private titles are never sent" in text and "ANTIDRIFT_" not in text
    assert "Drift guard settings" in text  # a link to Settings, named for what it changes


def test_the_page_says_when_the_guard_is_off(page):
    controller, client = page(DriftInfo(False, why_off="turned off in Settings"))
    text = parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text()
    assert "Drift guard off — turned off in Settings" in text
    assert controller.snapshot().drift.status.value == "off"


def test_review_shows_the_on_task_share_and_each_episode(page, clock):
    controller, client = page(DriftInfo(True, "claude"), drift=NOW)
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    wait_until(lambda: controller.snapshot().drift.status.value == "on_task")
    clock.advance(45)
    _drifting(controller, client, "Feed")
    clock.advance(15)
    client.post("/drift/ack", json={"answer": "back"})
    client.post("/finish")
    section = parse(client.get("/").get_data(as_text=True)).find_all(
        "section", class_="drift-review"
    )[0]
    text = " ".join(section.text().split())
    assert "On task 75% of the judged time" in text, text
    assert "1 drift episode" in text
    assert "firefox — Feed" in text and "15 s" in text and "you said: back to it" in text
    assert "The judge: firefox does not serve it" in text


def test_the_planning_form_offers_to_turn_the_guard_off_for_one_commitment(
    make_controller, judge, store, clock, tmp_path
):
    for info, offered in (
        (DriftInfo(True, "claude"), True),
        (DriftInfo(False, why_off="x"), False),
    ):
        controller = make_controller(judge=judge, drift=NOW if info.on else None)
        runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
        client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
        client.post("/planning")
        box = parse(client.get("/").get_data(as_text=True)).by_id("drift_off")
        assert (box is not None) == offered
        if not offered:
            continue
        assert (box.get("name"), box.get("value"), box.get("type")) == ("drift", "off", "checkbox")
        client.post("/commitment", data={**PLAN, "drift": "off"})
        assert client.get("/state").get_json()["drift"]["status"] == "off"
        text = parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text()
        assert "off for this commitment" in text
        client.post("/finish")
        client.post("/end", data={"outcome": "met"})


def _rows(client) -> dict[str, str]:
    """The review's table: each window's cell text (window, then its mark)."""
    doc = parse(client.get("/").get_data(as_text=True))
    table = doc.find_all("table", class_="shares review-shares")[0]
    cells = [tr.find_all("td")[0] for tr in table.find_all("tbody")[0].find_all("tr")]
    return {c.find_all("span", class_="share-window clamp-2")[0].text(): c.text() for c in cells}


def test_each_review_row_says_what_decided_its_window(page, clock):
    controller, client = page(DriftInfo(True, "claude"), drift=NOW)
    client.post("/rules", data={"app": "terminal", "verdict": "on_task"})
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    wait_until(lambda: controller.snapshot().drift.status.value == "on_task")
    clock.advance(30)
    _drifting(controller, client, "Cat videos")
    clock.advance(20)
    client.post("/drift/ack", json={"answer": "on_task"})
    assert (
        "On task, as you said"
        in parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text()
    )  # not "On task — you said this is on task"
    client.post("/evidence/window", json={"app": "terminal", "title": "make test"})
    wait_until(lambda: controller.snapshot().drift.reason is not None)
    clock.advance(10)
    client.post("/evidence/window", json={"app": "mail", "title": "Inbox"})
    wait_until(lambda: controller.snapshot().drift.status.value == "drifting")
    clock.advance(5)
    client.post("/finish")
    rows = _rows(client)
    assert rows["code — intro.md"].endswith("on task") and "you said" not in rows["code — intro.md"]
    assert rows["firefox — Cat videos"].endswith("you said on task")
    assert "on task your rule" in rows["terminal — make test"], rows
    assert rows["mail — Inbox"].endswith("off task")
    review = parse(client.get("/").get_data(as_text=True))
    # The bars are drawn (as on Insights), not the browser's default meter.
    assert (
        review.find_all("meter") == []
        and len([s for s in review.find_all("svg") if "share-bar" in s.get("class", "")]) == 4
    )
    # On task and off task differ in more than colour: the off-task bar is hatched.
    bars = {
        tr.find_all("span", class_="share-window clamp-2")[0].text(): tr.find_all("svg")[0]
        for tr in review.find_all("table", class_="shares review-shares")[0].find_all("tr")[1:]
    }
    assert "share-bar-off_task" in bars["mail — Inbox"].get("class")
    assert "share-bar-on_task" in bars["code — intro.md"].get("class")
    assert review.by_id("hatch-off-task") is not None
