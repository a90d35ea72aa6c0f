"""The teeth on the page and over HTTP: the planning checkbox (its default from Settings), the
commitment's choice in /state, a bad choice refused by name."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from antidrift.drift.policy import DriftSettings
from antidrift.drift.teeth import CouldNotPutAway
from antidrift.evidence.probe import WindowHandle
from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import DriftInfo
from antidrift.settings import Settings
from tests.fakes import RecordingNotifier, coach_info_for, wait_until
from tests.support.html import parse
from tests.support.plans import PLAN


@pytest.fixture
def planning(make_controller, judge, store, clock, tmp_path):
    def make(teeth: bool):
        drift = DriftSettings(
            timedelta(seconds=60),
            timedelta(seconds=300),
            30,
            "minimize" if teeth else "off",
            timedelta(seconds=45),
        )
        controller = make_controller(judge=judge, notifier=RecordingNotifier(), drift=drift)
        info = DriftInfo(True, "claude", teeth=teeth, teeth_after=45)
        runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
        client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
        client.post("/planning")
        return client

    return make


@pytest.mark.parametrize("teeth", [True, False])
def test_the_planning_checkbox_starts_from_the_setting(planning, teeth):
    page = parse(planning(teeth).get("/").get_data(as_text=True))
    box = page.by_id("enforce")
    assert (box.get("type"), box.get("name"), box.get("value")) == (
        "checkbox",
        "enforce",
        "minimize",
    )
    assert ("checked" in box.attrs) == teeth
    label = " ".join(page.find_all("label", for_="enforce")[0].text().split())
    assert "Put an off-task window away if I ignore a nudge" in label and "45" in label
    hidden = [
        i
        for i in page.find_all("input")
        if i.get("name") == "enforce" and i.get("type") == "hidden"
    ]
    assert [h.get("value") for h in hidden] == ["off"], "unchecked, the form says off"


@pytest.mark.parametrize(
    ("teeth", "sent", "stored"),
    [
        (False, ["minimize", "off"], "minimize"),  # the box ticked: its value comes first
        (True, ["off"], "off"),  # unticked: only the hidden field
        (True, None, "minimize"),  # a client that does not say: the setting
        (False, None, "off"),
    ],
)
def test_the_form_s_choice_is_the_commitment_s(planning, teeth, sent, stored):
    client = planning(teeth)
    data = dict(PLAN) if sent is None else {**PLAN, "enforce": sent}
    assert client.post("/commitment", data=data).status_code == 200
    assert client.get("/state").get_json()["commitment"]["enforce"] == stored


def test_a_choice_that_is_neither_is_refused_and_nothing_starts(planning):
    client = planning(False)
    answer = client.post("/commitment", json={**PLAN, "enforce": "close"})
    assert answer.status_code == 400 and "enforce" in answer.get_json()["error"]
    assert client.get("/state").get_json()["runtime_state"] == "planning"


class Enforcer:
    """A fake desktop adapter: puts the window away, or fails with a sentence."""

    def __init__(self, fail: str | None = None) -> None:
        self.fail, self.windows = fail, []
        self.during: Callable[[], object] | None = None  # what the user does meanwhile

    def __call__(self, window) -> str:
        self.windows.append(window)
        if self.during is not None:
            self.during()
        if self.fail:
            raise CouldNotPutAway(self.fail)
        return "moved to the scratchpad (swaymsg scratchpad show brings it back)"


@pytest.fixture
def drifting(make_controller, judge, store, clock, tmp_path):
    def make(enforcer: Enforcer, meanwhile: Callable[[object], object] | None = None):
        drift = DriftSettings(
            timedelta(seconds=1), timedelta(seconds=300), 30, "minimize", timedelta(seconds=1)
        )
        controller = make_controller(
            judge=judge, notifier=RecordingNotifier(), drift=drift, enforcer=enforcer
        )
        info = DriftInfo(True, "claude", teeth=True, teeth_after=1)
        runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
        client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
        if meanwhile is not None:  # while the desktop puts the window away
            enforcer.during = lambda: meanwhile(client)
        client.post("/planning")
        client.post("/commitment", data=PLAN)
        for _ in range(4):
            clock.advance(1)
            controller.record_window("firefox", "Cat videos", exact=WindowHandle("sway", "7"))
            controller.drift_tick()
            wait_until(lambda: controller.snapshot().drift.reason != "judging this window")
        wait_until(lambda: enforcer.windows, message="the adapter ran")
        return controller, client

    return make


def banner_text(client) -> str:
    return " ".join(parse(client.get("/").get_data(as_text=True)).by_id("drift").text().split())


def test_the_banner_says_what_was_done_and_the_answers_still_work(drifting):
    controller, client = drifting(Enforcer())
    wait_until(lambda: controller.snapshot().drift.banner.enforced_at is not None)
    text = banner_text(client)
    assert "Put away at" in text and "moved to the scratchpad" in text, text
    assert "swaymsg scratchpad show brings it back" in text
    assert client.post("/drift/ack", data={"answer": "back"}).status_code == 200
    # The banner is answered; the guard's line still says where the window went, and how back.
    guard = " ".join(
        parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text().split()
    )
    assert "Put firefox away at" in guard and "swaymsg scratchpad show" in guard, guard
    client.post("/finish")
    review = parse(client.get("/").get_data(as_text=True)).find_all("p", class_="episode-meta")
    assert "put away at" in " ".join(review[0].text().split())


def test_a_put_away_line_saved_after_finish_is_on_the_review_at_the_next_load(drifting):
    """The teeth save what they did after the desktop answered, off the lock: a Finish (and a
    look at the review) may come meanwhile. The review's evidence is kept between pushes, but
    a page served whole reads it afresh, so the next load shows the line."""
    seen: list[str] = []

    def finish_and_look(client) -> None:
        client.post("/finish")
        seen.append(_episode_meta(client))

    _, client = drifting(Enforcer(), meanwhile=finish_and_look)
    assert seen and "put away at" not in seen[0]  # the desktop had not answered yet
    assert "put away at" in _episode_meta(client)


def _episode_meta(client) -> str:
    page = parse(client.get("/").get_data(as_text=True))
    return " ".join(page.find_all("p", class_="episode-meta")[0].text().split())


def test_a_failure_is_a_word_in_the_banner_not_an_error(drifting):
    controller, client = drifting(Enforcer(fail="swaymsg could not move it: No matching node."))
    wait_until(lambda: controller.snapshot().drift.banner.enforce_note is not None)
    text = banner_text(client)
    assert "Could not put it away: swaymsg could not move it: No matching node." in text, text
    assert client.get("/state").status_code == 200
    assert client.post("/drift/ack", data={"answer": "on_task"}).status_code == 200
    guard = " ".join(
        parse(client.get("/").get_data(as_text=True)).by_id("drift-guard").text().split()
    )
    assert "Could not put firefox away: swaymsg could not move it" in guard, guard
    client.post("/finish")
    review = parse(client.get("/").get_data(as_text=True)).find_all("p", class_="episode-meta")
    assert "could not be put away" in " ".join(review[0].text().split())


def test_an_enforced_episode_carries_enforced_at_active_in_review_and_in_the_history(
    drifting, clock
):
    controller, client = drifting(Enforcer())
    wait_until(lambda: controller.snapshot().drift.banner.enforced_at is not None)
    put_at = controller.snapshot().drift.banner.enforced_at.isoformat()
    (active,) = client.get("/state").get_json()["commitment"]["episodes"]
    assert (active["number"], active["enforced_at"], active["ended_at"]) == (1, put_at, None)
    assert "title" not in active and "app" not in active  # the page shows the window, not this
    assert client.post("/drift/ack", data={"answer": "back"}).status_code == 200
    client.post("/finish")
    state = client.get("/state").get_json()
    assert state["runtime_state"] == "review"
    (review,) = state["commitment"]["episodes"]
    assert review["enforced_at"] == put_at and review["answer"] == "back"
    client.post("/end", json={"outcome": "met"})
    (row,) = client.get("/history").get_json()
    assert [e["enforced_at"] for e in row["episodes"]] == [put_at] and row["drift_count"] == 1


def test_an_episode_the_teeth_could_not_act_on_carries_enforced_at_null(drifting):
    controller, client = drifting(Enforcer(fail="swaymsg could not move it: No matching node."))
    wait_until(lambda: controller.snapshot().drift.banner.enforce_note is not None)
    (episode,) = client.get("/state").get_json()["commitment"]["episodes"]
    assert episode["enforced_at"] is None
