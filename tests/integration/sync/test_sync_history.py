"""Two machines, one sync folder (issue 42): what ends on one is in the other's history with
the machine's name, a correction or removal made on either reaches the other, an import is
taken once however often it is read, and a wrong passphrase takes nothing. Two real servers'
runtimes over their own data directories, their sync looked at by hand (`tick`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.html import parse
from tests.support.plans import PLAN
from tests.support.sync import HOST, Machine


@pytest.fixture
def machines(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    made = []

    def make(name, passphrase="correct horse battery staple", root=None):
        machine = Machine(root or tmp_path / name, folder, name, passphrase)
        made.append(machine)
        return machine

    yield make
    for machine in made:
        machine.stop()


def test_what_ends_on_one_machine_is_in_the_other_s_history_once(machines, tmp_path):
    desk, laptop = machines("desk"), machines("laptop")
    first = desk.commit("Write the intro")
    desk.sync.tick()
    laptop.sync.tick()
    [row] = laptop.history()
    assert (row["id"], row["next_action"], row["outcome"]) == (first, "Write the intro", "met")
    assert (row["device"], row["device_id"]) == ("desk", desk.sync.me)
    assert desk.history()[0]["device"] == "desk"  # its own, by its own name
    status = laptop.client.get("/sync.json", headers=HOST).get_json()
    assert status["device"] == {"id": laptop.sync.me, "name": "laptop"}
    assert [(d["name"], d["commitments"]) for d in status["devices"]] == [("desk", 1)]
    assert status["skipped"] == [] and status["problem"] is None
    # Read again, and by a restarted server: taken once.
    laptop.sync.tick()
    laptop.stop()
    again = Machine(tmp_path / "laptop", tmp_path / "Sync", "laptop")
    try:
        again.sync.tick()
        assert [r["id"] for r in again.history()] == [first]
        csv = again.client.get("/history.csv", headers=HOST).get_data(as_text=True)
        assert csv.splitlines()[0].endswith(",device") and csv.splitlines()[1].endswith(",desk")
    finally:
        again.stop()


def test_a_correction_and_a_removal_on_either_machine_reach_the_other(machines):
    desk, laptop = machines("desk"), machines("laptop")
    kept = desk.commit("Write the intro", "missed")
    gone = desk.commit("Answer the mail")
    desk.sync.tick()
    laptop.sync.tick()
    fixed = {"outcome": "met", "note": "it was done after all"}
    assert laptop.client.post(f"/history/{kept}", json=fixed, headers=HOST).status_code == 200
    laptop.sync.tick()
    desk.sync.tick()
    row = next(r for r in desk.history() if r["id"] == kept)
    assert (row["outcome"], row["note"]) == ("met", "it was done after all")
    assert row["device"] == "desk"  # still the desk's own
    assert desk.client.post(f"/history/{gone}/delete", headers=HOST).status_code == 200
    desk.sync.tick()
    laptop.sync.tick()
    assert [r["id"] for r in laptop.history()] == [kept]


def test_a_wrong_passphrase_is_a_sentence_and_takes_nothing(machines):
    desk = machines("desk")
    desk.commit("Write the intro")
    desk.sync.tick()
    stranger = machines("stranger", passphrase="not the one")
    stranger.sync.tick()
    assert stranger.history() == []
    status = stranger.client.get("/sync.json", headers=HOST).get_json()
    assert status["problem"] == (
        "The sync passphrase does not open the files of one of your other machines: enter the"
        " passphrase you chose on them."
    )
    # Nothing of the folder was quoted back, and nothing was written into another's folder.
    assert "Write the intro" not in json.dumps(status)


def test_a_commitment_running_on_one_machine_is_elsewhere_on_the_other(machines):
    desk, laptop = machines("desk"), machines("laptop")
    assert desk.client.post("/planning", headers=HOST).status_code == 200
    plan = {**PLAN, "next_action": "Write the intro", "timebox_minutes": 25}
    assert desk.client.post("/commitment", json=plan, headers=HOST).status_code == 200
    desk.sync.tick()
    laptop.sync.tick()
    [there] = laptop.client.get("/state", headers=HOST).get_json()["elsewhere"]
    assert {k: there[k] for k in ("device", "device_id", "state", "next_action", "paused")} == {
        "device": "desk",
        "device_id": desk.sync.me,
        "state": "active",
        "next_action": "Write the intro",
        "paused": False,
    }
    ends = datetime.fromisoformat(there["ends_at"])
    assert timedelta(minutes=24) < ends - datetime.now(UTC) <= timedelta(minutes=25)
    assert laptop.client.get("/state", headers=HOST).get_json()["runtime_state"] == "locked"
    # The line itself (Guard here too follows it on the locked view).
    line = parse(laptop.client.get("/", headers=HOST).get_data(as_text=True)).by_id("elsewhere-1")
    hhmm = ends.astimezone().strftime("%H:%M")
    assert " ".join(line.text().split()) == f"Active on desk: Write the intro, ends {hhmm}"
    laptop.client.post("/planning", headers=HOST)  # planning says it too
    line = parse(laptop.client.get("/", headers=HOST).get_data(as_text=True)).by_id("elsewhere")
    assert " ".join(line.text().split()).startswith("Active on desk: Write the intro, ends ")
    laptop.client.post("/planning/cancel", headers=HOST)
    desk.client.post("/pause", headers=HOST)
    desk.sync.tick()  # a transition: `now` written again at once
    laptop.sync.tick()
    assert laptop.client.get("/state", headers=HOST).get_json()["elsewhere"][0]["paused"]
    line = parse(laptop.client.get("/", headers=HOST).get_data(as_text=True)).by_id("elsewhere-1")
    assert " ".join(line.text().split()) == "Active on desk: Write the intro, paused"
    # Seen more than three minutes ago by this machine's own clock: no longer shown.
    later = laptop.sync._wall() + 181
    laptop.sync._wall = lambda: later
    assert laptop.client.get("/state", headers=HOST).get_json()["elsewhere"] == []
