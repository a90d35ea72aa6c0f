"""The teeth on the page and over HTTP: the planning checkbox (its default from Settings), the
commitment's choice in /state, a bad choice refused by name."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.app import create_app
from antidrift.bootstrap import Runtime
from antidrift.drift import DriftSettings
from antidrift.settings import Settings
from antidrift.snapshot import DriftInfo
from tests.fakes import RecordingNotifier, coach_info_for
from tests.support.html import parse

PLAN = {
    "next_action": "Write the intro",
    "success_condition": "In the doc",
    "timebox_minutes": "20",
}


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
