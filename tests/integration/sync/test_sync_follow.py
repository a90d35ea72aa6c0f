"""Guard here too across two machines (issue 42 item 4): two real servers' runtimes over one
sync folder (their sync looked at by hand, `tick`). The laptop follows the desk's running
commitment: its own window seen off task by a standing rule (no AI judges there) nudges on
the laptop, the evidence is kept there by the desk's commitment id, and when the desk
finishes, the laptop's following ends and its page says so."""

from __future__ import annotations

import pytest

from tests.fakes import FakeClock, wait_until
from tests.support.fake_notify import FakeNotifier
from tests.support.html import parse
from tests.support.sync import HOST, Machine, desk_and_laptop, followed


@pytest.fixture
def two(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    nudges = FakeNotifier(tmp_path / "bin")
    desk = Machine(tmp_path / "desk", folder, "desk")
    laptop = Machine(
        tmp_path / "laptop",
        folder,
        "laptop",
        env={
            "ANTIDRIFT_DRIFT": "off",  # no AI judges here: the standing rules alone decide
            "ANTIDRIFT_DRIFT_GRACE": "0",
            "ANTIDRIFT_NOTIFY": "command",
            "ANTIDRIFT_NOTIFY_COMMAND": nudges.command_line(),
        },
    )
    yield desk, laptop, nudges
    desk.stop()
    laptop.stop()


def test_the_laptop_guards_the_desks_commitment_nudges_here_and_stops_when_it_ends(two):
    desk, laptop, nudges = two
    assert desk.client.post("/planning", headers=HOST).status_code == 200
    plan = {"next_action": "Write the intro", "success_condition": "Intro in the doc"}
    started = desk.client.post("/commitment", json={**plan, "timebox_minutes": 25}, headers=HOST)
    cid = started.get_json()["commitment"]["id"]
    desk.sync.tick()
    laptop.sync.tick()
    rule = {"app": "firefox", "verdict": "off_task"}
    assert laptop.client.post("/rules", json=rule, headers=HOST).status_code == 201

    body = laptop.client.post("/follow", json={"device_id": desk.sync.me}, headers=HOST)
    assert body.status_code == 200
    body = body.get_json()
    assert body["runtime_state"] == "locked"
    assert body["following"] == {"device": "desk", "device_id": desk.sync.me, "commitment_id": cid}

    window = {"app": "firefox", "title": "Cat videos — YouTube"}
    answer = laptop.client.post("/evidence/window", json=window, headers=HOST)
    assert (answer.status_code, answer.get_json()) == (202, {"recorded": True})
    drift = laptop.client.get("/state", headers=HOST).get_json()["drift"]
    assert (drift["status"], drift["reason"]) == (
        "drifting",
        "your rule: firefox is always off task",
    )
    wait_until(lambda: nudges.calls())
    [call] = nudges.calls()
    assert "Back to: Write the intro\nfirefox: your rule" in call[-1]
    assert desk.client.get("/state", headers=HOST).get_json()["runtime_state"] == "active"

    assert desk.client.post("/finish", headers=HOST).status_code == 200
    assert desk.client.post("/end", json={"outcome": "met"}, headers=HOST).status_code == 200
    desk.sync.tick()
    laptop.sync.tick()
    laptop.runtime.controller.following.tick()  # the ticker's once a second
    assert laptop.client.get("/state", headers=HOST).get_json()["following"] is None
    line = parse(laptop.client.get("/", headers=HOST).get_data(as_text=True)).by_id("following")
    assert " ".join(line.text().split()) == (
        "Stopped guarding desk's commitment here: it ended there."
    )
    # Ended: what the laptop saw goes to the folder, as the desk's commitment's evidence.
    assert laptop.runtime.store.evidence_body(cid)["owner_id"] == desk.sync.me
    laptop.tick(desk)
    [kept] = desk.runtime.reads.device_evidence(cid)
    assert (kept.device_id, kept.device) == (laptop.sync.me, "laptop")
    assert [e.number for e in kept.episodes] == [1]
    assert kept.figures.drift_count == 1  # one drift episode, in the figures


# -- the evidence by device, at the desk ----------------------------------------------------------


@pytest.fixture
def clocked(tmp_path):
    """The desk and the laptop on test clocks of their own (no AI judges on either: the
    standing rules decide), their sync looked at by hand."""
    with desk_and_laptop(tmp_path) as machines:
        yield machines


def _rows(machine: Machine) -> list[tuple[str, str, str]]:
    """The review's table: (window, the machine named, its mark) per row."""
    page = parse(machine.client.get("/", headers=HOST).get_data(as_text=True))
    rows = []
    for row in page.find_all("tr")[1:]:
        window = " ".join(
            row.find_all("span", **{"class": "share-window clamp-2"})[0].text().split()
        )
        device = [
            m.text().strip()
            for m in row.find_all("span")
            if "mark-device" in (m.get("class") or "")
        ]
        marks = [
            m.text().strip()
            for m in row.find_all("span")
            if (m.get("class") or "").startswith("mark mark-")
            and "mark-device" not in m.get("class")
        ]
        rows.append((window, device[0] if device else "", marks[0] if marks else ""))
    return rows


def test_the_laptops_evidence_is_the_desks_review_by_device_and_counts_after_it(clocked):
    desk, laptop = clocked
    for rule in ({"app": "code", "verdict": "on_task"}, {"app": "firefox", "verdict": "off_task"}):
        assert laptop.client.post("/rules", json=rule, headers=HOST).status_code == 201
    cid = followed(desk, laptop)
    for _ in range(10):  # ten minutes of the intro at the desk
        desk.window("code", "intro.md", then=60)
    # And on the laptop: two on task, one off by the rule.
    laptop.window("code", "intro.md", then=60)
    laptop.window("code", "intro.md", then=60)
    laptop.window("firefox", "Cat videos — YouTube", then=3600 - 120)  # a minute counted
    laptop.window("code", "intro.md")
    following = laptop.runtime.controller.following
    following.tick()  # an hour since following began: what it saw goes to the folder
    laptop.tick(desk)
    # Taken while the desk's commitment still runs: kept by device, beside none of its own.
    [kept] = desk.runtime.reads.device_evidence(cid)
    assert (kept.device_id, kept.device) == (laptop.sync.me, "laptop")

    assert desk.client.post("/finish", headers=HOST).status_code == 200
    assert _rows(desk) == [
        ("code — intro.md", "", "on task"),  # the desk's own ten minutes
        ("code — intro.md", "on laptop", "on task"),
        ("firefox — Cat videos — YouTube", "on laptop", "off task"),
    ]
    drift = parse(desk.client.get("/", headers=HOST).get_data(as_text=True)).by_id(
        "drift-review-title"
    )
    assert drift is not None
    page = desk.client.get("/", headers=HOST).get_data(as_text=True)
    # Time-weighted: 10 min on task here, 2 on and 1 off there.
    assert "On task 92% of the judged time here and on" in " ".join(page.split())

    assert desk.client.post("/end", json={"outcome": "met"}, headers=HOST).status_code == 200
    [entry] = desk.history()
    assert (entry["drift_count"], entry["on_task_share"]) == (1, round(720 / 780, 4))
    # The laptop goes on seeing the commitment run until it hears of its end: five more
    # minutes off task there arrive after the review was recorded, when following ends.
    for _ in range(5):
        laptop.window("firefox", "Cat videos — YouTube", then=60)
    laptop.window("code", "intro.md")
    following.tick()
    laptop.tick(desk)
    [kept] = desk.runtime.reads.device_evidence(cid)
    assert kept.figures.drift_count == 1  # within the hour: nothing new sent yet
    laptop.tick()  # the laptop hears of the end
    following.tick()  # following ends: what it saw goes to the folder
    assert laptop.runtime.controller.snapshot().following is None
    laptop.tick(desk)
    [entry] = desk.history()
    assert (entry["drift_count"], entry["on_task_share"]) == (2, round(720 / (720 + 60 + 300), 4))
    assert [(e["device"], e["device_id"]) for e in entry["evidence"]] == [
        ("laptop", laptop.sync.me)
    ]
    # The week counts the laptop's time off task; Insights its figures.
    week = desk.client.get("/week.json", headers=HOST).get_json()
    assert week["top_distractions"] == [{"name": "firefox", "minutes": 6}]
    insights = " ".join(desk.client.get("/insights", headers=HOST).get_data(as_text=True).split())
    assert "67% on task · 2 drifts" in insights
    # The desk's own evidence is as it was: its own windows, its own figures.
    assert desk.runtime.store.drift_summaries([cid])[cid][1] == 1.0


def test_what_the_laptop_saw_before_a_restart_still_reaches_the_desk(clocked, tmp_path):
    desk, laptop = clocked
    cid = followed(desk, laptop)
    laptop.window("code", "intro.md", then=30)
    laptop.window("docs", "Outline")  # within the minute: nothing sent yet
    laptop.stop()  # a restart ends following; what it kept stays, and goes at the next start
    again = Machine(tmp_path / "laptop", desk.settings.sync_folder, "laptop", clock=FakeClock())
    try:
        assert again.client.get("/state", headers=HOST).get_json()["following"] is None
        again.tick(desk)
        [kept] = desk.runtime.reads.device_evidence(cid)
        assert (kept.device, kept.windows) == ("laptop", (("code", "intro.md", "code", 30.0),))
    finally:
        again.stop()
