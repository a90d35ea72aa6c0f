"""Time away through Flask's test client: /state's `away` and `away_secs`, drift.status
"away", the title, the return question (id="away-return") with POST /away/credit and
/away/dismiss (and their 409s), the review's away line, /history and the CSV."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest

from antidrift.drift.window_key import is_own_page
from tests.fakes import START
from tests.support.html import parse
from tests.support.web import HX, state, to


def page(client):
    return parse(client.get("/").get_data(as_text=True))


def go_away(client, controller, clock, *, after: int = 60, minutes: int = 12) -> None:
    """Active; input stops `after` s in, and the user comes back `minutes` later."""
    to(client, "active")
    clock.advance(after + 180)
    assert controller.note_idle(180) is True
    clock.advance(minutes * 60 - 180)
    if minutes:
        assert controller.note_idle(0) is False


def test_state_and_title_say_away_while_away(client, controller, clock):
    to(client, "active")
    assert (state(client)["away"], state(client)["away_secs"]) == (False, 0)
    clock.advance(240)
    controller.note_idle(180)
    clock.advance(120)
    body = state(client)
    assert (body["away"], body["away_secs"]) == (True, 300)
    assert body["drift"]["status"] == "away"
    view = page(client)
    assert view.find_all("title")[0].text().startswith("Away · ")
    assert "Away from the keyboard" in view.by_id("drift-guard").text()
    assert view.by_id("away-return").text().strip() == ""  # nothing to answer yet
    response = client.post("/evidence/window", json={"app": "firefox", "title": "feed"})
    assert response.get_json() == {"recorded": False}


def test_back_the_view_asks_and_count_it_as_a_pause_moves_the_deadline(client, controller, clock):
    go_away(client, controller, clock)
    body = state(client)
    assert (body["away"], body["away_secs"], body["away_returned_secs"]) == (False, 720, 720)
    box = page(client).by_id("away-return")
    assert "You were away 12 min" in " ".join(box.text().split())
    buttons = {b.text().strip(): b.get("hx-post") for b in box.find_all("button")}
    assert buttons == {"Count it as a pause": "/away/credit", "Keep counting": "/away/dismiss"}
    response = client.post("/away/credit")
    assert response.status_code == 200
    c = response.get_json()["commitment"]
    assert datetime.fromisoformat(c["deadline"]) == START + timedelta(minutes=32)
    assert response.get_json()["paused_secs"] == 720
    assert page(client).by_id("away-return").text().strip() == ""
    again = client.post("/away/credit")
    assert again.status_code == 409 and "not been away" in again.get_json()["error"]
    assert state(client)["paused_secs"] == 720  # nothing changed


def test_keep_counting_leaves_the_deadline_where_it_was(client, controller, clock):
    go_away(client, controller, clock)
    response = client.post("/away/dismiss")
    assert response.status_code == 200
    c = response.get_json()["commitment"]
    assert datetime.fromisoformat(c["deadline"]) == START + timedelta(minutes=20)
    assert response.get_json()["paused_secs"] == 0
    assert page(client).by_id("away-return").text().strip() == ""


@pytest.mark.parametrize("where", ["locked", "planning", "review"])
@pytest.mark.parametrize("path", ["/away/credit", "/away/dismiss"])
def test_the_away_moves_outside_a_running_commitment_are_409(client, where, path):
    to(client, where)
    response = client.post(path)
    assert response.status_code == 409 and response.get_json()["error"].startswith("You can't")
    assert state(client)["runtime_state"] == where


def test_a_timebox_that_ran_out_while_away_is_reviewed_with_the_time_away(
    client, controller, clock
):
    to(client, "active")
    clock.advance(10 * 60)
    controller.note_idle(180)  # away since 7:00
    clock.advance(30 * 60)
    controller.expire_if_due()
    assert state(client)["runtime_state"] == "review"
    review = " ".join(page(client).by_id("view").text().split())
    assert "13 min of it away" in review  # 7:00 to the deadline at 20:00
    assert (state(client)["away_secs"], state(client)["paused_secs"]) == (13 * 60, 0)
    client.post("/end", json={"outcome": "missed"})
    [row] = client.get("/history").get_json()
    assert row["away_secs"] == 13 * 60
    header, line = list(csv.reader(io.StringIO(client.get("/history.csv").get_data(as_text=True))))
    assert dict(zip(header, line, strict=True))["away_secs"] == "780"


def test_time_away_counted_as_a_pause_is_not_counted_again_as_away(client, controller, clock):
    """Counted as a pause, the absence is paused time: the review must not say it was also
    "of it away" (12 min away of a 1-minute commitment), nor history carry it twice."""
    go_away(client, controller, clock)  # 12 min away, from 1:00 to 13:00
    client.post("/away/credit")
    assert state(client)["away_secs"] == 0
    clock.advance(60)
    client.post("/finish")
    review = " ".join(page(client).by_id("view").text().split())
    assert "12 min paused" in review and "away" not in review
    assert (state(client)["away_secs"], state(client)["paused_secs"]) == (0, 720)  # as said
    client.post("/end", json={"outcome": "met"})
    [row] = client.get("/history").get_json()
    assert (row["paused_secs"], row["away_secs"], row["actual_secs"]) == (720, 0, 120)


def test_an_answer_from_the_page_says_what_was_done_and_moves_the_focus(client, controller, clock):
    go_away(client, controller, clock)
    answer = parse(client.post("/away/credit", headers=HX).get_data(as_text=True))
    assert "Counted as a pause: the deadline moved by 12 min." in answer.text()
    heading = answer.by_id("active-title")
    assert heading is not None and heading.get("hx-swap-oob") is not None
    go_away_again = controller.note_idle(180), controller.note_idle(0)
    assert go_away_again == (False, False)  # three minutes have not passed since the answer


def test_while_away_the_evidence_line_says_so_rather_than_a_quiet_watcher(
    client, controller, clock
):
    to(client, "active")
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    clock.advance(180)
    controller.note_idle(180)
    clock.advance(10 * 60)  # no sample for ten minutes: the watcher is not what went quiet
    body = state(client)
    assert body["evidence"]["health"] == "healthy"
    line = " ".join(page(client).by_id("evidence").text().split())
    assert line == "Away: no window is recorded until you are back (last: code)."


def test_the_away_title_is_known_by_the_guard_as_its_own_page(client, controller, clock):
    to(client, "active")
    clock.advance(180)
    controller.note_idle(180)
    shown = page(client).find_all("title")[0].text()
    assert shown.startswith("Away · ")
    assert is_own_page(shown, controller.snapshot().commitment.next_action)
    assert is_own_page(f"{shown} — Mozilla Firefox", controller.snapshot().commitment.next_action)


def test_back_the_live_region_says_it_once_the_question_is_up(client, controller, clock):
    go_away(client, controller, clock)
    region = page(client).by_id("announce")
    assert region.get("role") == "status" and region.text() == "You were away 12 min."
    client.post("/away/dismiss")
    assert page(client).by_id("announce").text() == ""


def test_the_eyebrow_above_the_clock_says_away_while_away(client, controller, clock):
    to(client, "active")
    assert page(client).by_id("phase").text() == "Active"
    clock.advance(180)
    controller.note_idle(180)
    assert page(client).by_id("phase").text() == "Away"
    controller.note_idle(0)
    assert page(client).by_id("phase").text() == "Active"
