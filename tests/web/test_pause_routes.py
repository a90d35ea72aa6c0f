"""POST /pause, /resume, /finish/undo, the closure and Again, "5 minutes left" and "Time's
up" through Flask's test client: the routes, their 409s and 4xx sentences (nothing changed),
and what the page shows."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest

from tests.fakes import START
from tests.support.html import parse
from tests.support.web import HX, commit, state, to


def page(client):
    return parse(client.get("/").get_data(as_text=True))


def title(client) -> str:
    return page(client).find_all("title")[0].text()


# -- pause and resume ---------------------------------------------------------------------------


def test_pause_stops_the_clock_and_resume_moves_the_deadline(client, clock):
    to(client, "active")
    assert (state(client)["paused"], state(client)["paused_secs"]) == (False, 0)
    clock.advance(120)
    response = client.post("/pause")
    assert response.status_code == 200 and response.get_json()["paused"] is True
    assert response.headers["AntiDrift-Left-Secs"] == "1080"
    clock.advance(300)
    body = client.get("/state")
    assert body.headers["AntiDrift-Left-Secs"] == "1080"  # stood still for five minutes
    assert (body.get_json()["paused"], body.get_json()["paused_secs"]) == (True, 300)
    assert body.get_json()["drift"]["status"] == "paused"
    response = client.post("/resume")
    assert response.status_code == 200
    c = response.get_json()["commitment"]
    assert datetime.fromisoformat(c["deadline"]) == START + timedelta(minutes=25)
    assert response.get_json()["paused"] is False and response.get_json()["paused_secs"] == 300


@pytest.mark.parametrize("where", ["locked", "planning", "review"])
def test_pause_and_resume_outside_a_running_commitment_are_409(client, where):
    to(client, where)
    for path in ("/pause", "/resume"):
        response = client.post(path)
        assert response.status_code == 409
        assert response.get_json()["error"].startswith("You can't")
    assert state(client)["runtime_state"] == where and "paused" not in state(client)


def test_pause_twice_and_resume_while_running_are_409_and_change_nothing(client, clock):
    to(client, "active")
    response = client.post("/resume")
    assert response.status_code == 409 and "not paused" in response.get_json()["error"]
    client.post("/pause")
    before = state(client)
    clock.advance(5)
    response = client.post("/pause")
    assert response.status_code == 409 and "paused" in response.get_json()["error"]
    after = state(client)
    assert after["commitment"] == before["commitment"] and after["paused"] is True


def test_the_page_while_paused_says_so_and_offers_resume_and_finish(client, clock):
    to(client, "active")
    client.post("/pause", headers=HX)
    doc = page(client)
    assert title(client).startswith("Paused · 20:00 · Write the intro")
    controls = doc.by_id("controls")
    assert "Paused with 20:00 left" in " ".join(controls.text().split())
    buttons = {b.text().strip(): b for b in controls.find_all("button")}
    assert buttons["Resume"].get("hx-post") == "/resume"
    assert buttons["Finish"].get("hx-post") == "/finish"
    assert "+5 min" not in buttons  # more time waits until the clock runs
    assert "waiting" in doc.by_id("drift-guard").text()
    client.post("/resume", headers=HX)
    controls = page(client).by_id("controls")
    assert [b.text().strip() for b in controls.find_all("button")][:2] == ["Finish", "Pause"]
    assert not title(client).startswith("Paused")


def test_paused_says_paused_above_the_clock_and_the_watcher_line_stays_calm(client, clock):
    to(client, "active")
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    main = page(client).by_id("view").find_all("div", class_="focus-main")[0]
    assert [n.id for n in main.elements[:2]] == ["phase", "time-left"]
    assert main.by_id("phase").text() == "Active"
    client.post("/pause", headers=HX)
    clock.advance(120)  # long past the 30 s after which a running watcher has gone quiet
    doc = page(client)
    assert doc.by_id("phase").text() == "Paused"
    evidence = doc.by_id("evidence")
    words = " ".join(evidence.text().split())
    assert "gone quiet" not in words and words == "Not watching while paused."
    assert "evidence-stale" not in evidence.get("class")
    client.post("/resume", headers=HX)
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    doc = page(client)
    assert doc.by_id("phase").text() == "Active"
    assert "Watching focus" in doc.by_id("evidence").text()
    clock.advance(120)  # running, a watcher silent this long has gone quiet: it says so
    assert "gone quiet" in page(client).by_id("evidence").text()


def test_finish_works_while_paused_and_history_carries_the_paused_time(client, clock):
    to(client, "active")
    clock.advance(240)
    client.post("/pause")
    clock.advance(600)
    assert client.post("/finish").status_code == 200
    review = page(client).by_id("view").text()
    assert "4 min of 20 min" in " ".join(review.split()) and "10 min paused" in review
    client.post("/end", json={"outcome": "met"})
    [row] = client.get("/history").get_json()
    assert (row["paused_secs"], row["actual_secs"]) == (600, 240)
    header, line = list(csv.reader(io.StringIO(client.get("/history.csv").get_data(as_text=True))))
    assert dict(zip(header, line, strict=True))["paused_secs"] == "600"
    [entry] = page(client).find_all("ol")
    assert "4 min taken · 10 min paused" in " ".join(entry.text().split())


def test_windows_sent_while_paused_are_accepted_and_dropped(client):
    to(client, "active")
    client.post("/pause")
    response = client.post("/evidence/window", json={"app": "firefox", "title": "bank"})
    assert response.status_code == 202 and response.get_json() == {"recorded": False}
    assert state(client)["evidence"]["last"] is None


# -- undo finish ----------------------------------------------------------------------------------


def test_undo_within_30_seconds_returns_to_the_same_deadline(client, clock):
    to(client, "active")
    deadline = state(client)["commitment"]["deadline"]
    clock.advance(60)
    client.post("/finish", headers=HX)
    undo = page(client).by_id("undo")
    [button] = undo.find_all("button")
    assert button.get("hx-post") == "/finish/undo" and "Undo" in button.text()
    clock.advance(29)
    response = client.post("/finish/undo")
    assert response.status_code == 200
    assert response.get_json()["runtime_state"] == "active"
    assert response.get_json()["commitment"]["deadline"] == deadline
    assert response.get_json()["commitment"]["ran_out"] is False


def test_undo_later_than_30_seconds_is_409_and_the_button_is_gone(client, clock):
    to(client, "review")
    clock.advance(31)
    assert page(client).by_id("undo").find_all("button") == []
    response = client.post("/finish/undo")
    assert response.status_code == 409 and "30 seconds" in response.get_json()["error"]
    assert state(client)["runtime_state"] == "review"


def test_undo_after_an_expiry_after_end_and_twice_is_409(client, clock, controller):
    to(client, "active")
    clock.advance(20 * 60)
    controller.expire_if_due()
    assert page(client).by_id("undo").find_all("button") == []
    assert client.post("/finish/undo").status_code == 409
    client.post("/end", json={"outcome": "missed"})
    assert client.post("/finish/undo").status_code == 409
    client.post("/planning")
    client.post(
        "/commitment", json={"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
    )
    client.post("/finish")
    assert client.post("/finish/undo").status_code == 200
    assert client.post("/finish/undo").status_code == 409
    assert state(client)["runtime_state"] == "active"


def test_an_undo_is_used_up_even_when_the_time_runs_out_within_its_30_seconds(
    client, clock, controller
):
    # Finish 10 s before the deadline, undo, and the timebox runs out 5 s later: back in
    # review within 30 s of that one Finish, for the same commitment. The undo was used.
    client.post("/planning")
    plan = {"next_action": "a", "success_condition": "b", "timebox_minutes": 1}
    assert client.post("/commitment", json=plan).status_code == 200
    clock.advance(50)
    client.post("/finish")
    assert client.post("/finish/undo").status_code == 200
    clock.advance(15)
    assert controller.expire_if_due()  # the ticker's second: time's up
    assert state(client)["runtime_state"] == "review"
    assert page(client).by_id("undo").find_all("button") == []
    response = client.post("/finish/undo")
    assert response.status_code == 409 and "once" in response.get_json()["error"]
    assert state(client)["runtime_state"] == "review"


# -- the closure and Again -------------------------------------------------------------------------


def test_after_saving_the_locked_view_acknowledges_it_with_the_met_streak(client, clock):
    commit(client, clock, "missed")
    closure = page(client).by_id("closure")
    assert closure.by_id("locked-title").text() == "Missed"
    commit(client, clock, "met")
    commit(client, clock, "met")
    cid = commit(client, clock, "met", "Fix the flaky test")
    doc = page(client)
    closure = doc.by_id("closure")
    assert " ".join(closure.by_id("locked-title").text().split()) == "Met · 3 in a row"
    assert "Fix the flaky test" in closure.text()
    assert "No commitment yet" not in doc.by_id("view").text()
    buttons = {b.text().strip(): b for b in closure.find_all("button")}
    assert buttons["Plan the next"].get("hx-post") == "/planning"
    assert buttons["Again"].get("hx-post") == "/planning"
    assert f'"again": "{cid}"' in buttons["Again"].get("hx-vals")
    assert page(client).by_id("closure") is not None  # a reload still shows it


def test_the_closure_goes_when_the_next_planning_starts(client, clock):
    commit(client, clock, "met")
    client.post("/planning")
    client.post("/planning/cancel")
    doc = page(client)
    assert doc.by_id("closure") is None
    assert doc.by_id("locked-title").text() == "1 met today"  # what the day holds, not "yet"


def test_again_opens_planning_with_that_commitments_plan_as_the_draft(client, clock):
    cid = commit(client, clock, "met", "Fix the flaky test")
    response = client.post("/planning", data={"again": cid})
    assert response.status_code == 200
    draft = state(client)["draft"]
    assert (draft["next_action"], draft["success_condition"]) == (
        "Fix the flaky test",
        "Intro in the doc",
    )
    assert str(draft["timebox_minutes"]) == "25"
    fields = {f.get("name"): f for f in page(client).find_all("input")}
    assert fields["next_action"].get("value") == "Fix the flaky test"


@pytest.mark.parametrize(
    ("again", "status", "words"),
    [
        ("no-such-commitment", 404, "no such entry in the history"),
        ("x" * 101, 400, "id of a commitment"),
        (17, 400, "id of a commitment"),
        (["a"], 400, "id of a commitment"),
    ],
)
def test_again_with_a_bad_id_is_a_sentence_and_nothing_changes(client, clock, again, status, words):
    commit(client, clock, "met")
    response = client.post("/planning", json={"again": again})
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert state(client)["runtime_state"] == "locked"
    assert page(client).by_id("closure") is not None  # still acknowledged


def test_again_outside_locked_is_409(client, clock):
    cid = commit(client, clock, "met")
    to(client, "planning")
    response = client.post("/planning", json={"again": cid})
    assert response.status_code == 409 and "planning" in response.get_json()["error"]


# -- five minutes left, time's up ------------------------------------------------------------------


def announce(client) -> str:
    return page(client).by_id("announce").text().strip()


def test_five_minutes_left_is_in_the_title_and_the_live_region_for_a_minute(client, clock):
    to(client, "active")  # 20 minutes
    region = page(client).by_id("announce")
    assert (region.get("role"), region.get("aria-live")) == ("status", "polite")
    clock.advance(15 * 60 - 1)
    assert announce(client) == "" and not title(client).startswith("5 min left")
    clock.advance(1)
    assert announce(client) == "5 minutes left."
    assert title(client).startswith("5 min left · 05:00 · Write the intro")
    clock.advance(60)
    assert announce(client) == "" and title(client).startswith("04:00")


def test_a_short_timebox_hears_no_five_minutes(client, clock):
    client.post("/planning")
    client.post(
        "/commitment", json={"next_action": "a", "success_condition": "b", "timebox_minutes": 10}
    )
    clock.advance(5 * 60)
    assert announce(client) == "" and title(client).startswith("05:00")


def test_times_up_is_announced_by_the_live_region(client, clock, controller):
    to(client, "active")
    clock.advance(20 * 60)
    controller.expire_if_due()
    assert announce(client) == "Time's up."
    client.post("/end", json={"outcome": "met"})
    assert announce(client) == ""
