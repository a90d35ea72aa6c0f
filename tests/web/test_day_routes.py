"""The day's queue over HTTP (issue 43 items 1-2): /day and /day.json, add (typed, or a task
by its title), delete, move, clear; every refusal a 4xx with a sentence that changes nothing;
rollover through the test clock; Plan it opens planning with the item, and Start takes it
off the queue with the commitment keeping its id; a restart keeps the queue."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.calendar import Calendar, parse
from antidrift.core.day import DAY_ENDS, MAX_ITEMS, day_end
from antidrift.core.domain import RuntimeState
from antidrift.core.errors import WriteFailed
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.html import parse as html
from tests.support.ics import event, write
from tests.support.session import build_controller

HX = {"HX-Request": "true"}
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def store(tmp_path):
    """The real store, on disk: a restart opens the same file."""
    s = SQLiteStore(tmp_path / "antidrift.db")
    yield s
    s.close()


@pytest.fixture
def client(make_app, controller, fake_coach):
    return make_app(controller, fake_coach).test_client()


def day(client) -> dict:
    response = client.get("/day.json")
    assert response.status_code == 200
    return response.get_json()


def add(client, next_action="Write the intro", **fields):
    return client.post("/day/items", json={"next_action": next_action, **fields})


def actions(client) -> list[str]:
    return [i["next_action"] for i in day(client)["items"]]


def free_until_day_end(now) -> int:
    end = day_end(now, DAY_ENDS)
    return max(0, int((end - now).total_seconds() // 60))


def test_an_empty_day_says_its_date_and_free_minutes(client, clock):
    body = day(client)
    assert body == {
        "date": clock.now().astimezone().date().isoformat(),
        "items": [],
        "planned_minutes": 0,
        "free_minutes": free_until_day_end(clock.now()),
        "tally": {"planned": 0, "met": 0, "missed": 0, "carried": 0},
        "proposal": None,  # Sharpen the day's, when one waits (test_day_sharpen_routes.py)
    }


def test_items_are_added_moved_deleted_and_cleared(client):
    first = add(client, "Write the intro", success_condition="Intro sent", timebox_minutes=30)
    assert first.status_code == 201
    add(client, "Review the PR")  # done-when and minutes wait until Plan it
    add(client, "Reply to Ana", timebox_minutes="15")
    body = day(client)
    assert [i["carried"] for i in body["items"]] == [False] * 3
    assert body["items"][0] | {"id": "x"} == {
        "id": "x",
        "next_action": "Write the intro",
        "success_condition": "Intro sent",
        "timebox_minutes": 30,
        "carried": False,
    }
    assert body["items"][1]["success_condition"] == ""
    assert body["items"][1]["timebox_minutes"] is None
    assert body["planned_minutes"] == 30 + 25 + 15  # an item without minutes counts 25
    ids = [i["id"] for i in body["items"]]

    assert client.post(f"/day/items/{ids[2]}/move", json={"to": 0}).status_code == 200
    assert actions(client) == ["Reply to Ana", "Write the intro", "Review the PR"]
    client.post(f"/day/items/{ids[2]}/move", data={"to": "down"})
    assert actions(client) == ["Write the intro", "Reply to Ana", "Review the PR"]
    client.post(f"/day/items/{ids[1]}/move", json={"to": "up"})
    assert actions(client) == ["Write the intro", "Review the PR", "Reply to Ana"]
    client.post(f"/day/items/{ids[0]}/move", json={"to": 99})  # past the end: the end
    assert actions(client) == ["Review the PR", "Reply to Ana", "Write the intro"]

    assert client.post(f"/day/items/{ids[1]}/delete").status_code == 200
    assert actions(client) == ["Reply to Ana", "Write the intro"]
    cleared = client.post("/day/clear")
    assert cleared.status_code == 200
    assert cleared.get_json()["items"] == []


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({}, 400, "Next action is required"),
        ({"next_action": "   "}, 400, "Next action is required"),
        ({"next_action": 7}, 400, "Next action must be text"),
        ({"next_action": "x" * 501}, 400, "too long"),
        ({"next_action": "a\x07b"}, 400, "control character"),
        ({"next_action": "ok", "timebox_minutes": 0}, 400, "Minutes must be"),
        ({"next_action": "ok", "timebox_minutes": "481"}, 400, "Minutes must be"),
        ({"next_action": "ok", "timebox_minutes": "ten"}, 400, "Minutes must be"),
        ({"next_action": "ok", "success_condition": 3}, 400, "Done when"),
        ({"task": "nocolon"}, 400, "Pick a task"),
        ({"task": "markdown:nothing-here"}, 404, "not in your task sources"),
    ],
)
def test_a_refused_add_says_why_and_changes_nothing(client, fields, status, words):
    add(client, "Already here")
    before = day(client)
    response = client.post("/day/items", json=fields)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert day(client) == before


def test_refused_moves_deletes_and_unknown_items_change_nothing(client):
    add(client, "One")
    add(client, "Two")
    before = day(client)
    one = before["items"][0]["id"]
    for path, body, status in [
        ("/day/items/nope/delete", None, 404),
        ("/day/items/nope/move", {"to": 0}, 404),
        (f"/day/items/{'x' * 300}/delete", None, 404),
        (f"/day/items/{one}/move", {"to": -1}, 400),
        (f"/day/items/{one}/move", {"to": "sideways"}, 400),
        (f"/day/items/{one}/move", {"to": True}, 400),
        (f"/day/items/{one}/move", {}, 400),
    ]:
        response = client.post(path, json=body) if body is not None else client.post(path)
        assert response.status_code == status, path
        assert response.get_json()["error"].endswith("."), path
        assert day(client) == before, path


def test_the_fifty_first_item_is_refused(client):
    for n in range(MAX_ITEMS):
        assert add(client, f"Item {n}").status_code == 201
    response = add(client, "One too many")
    assert response.status_code == 409
    assert "at most 50" in response.get_json()["error"]
    assert len(day(client)["items"]) == MAX_ITEMS


def test_a_failed_write_changes_nothing(client, store, clock, monkeypatch):
    add(client, "One")
    add(client, "Two")
    clock.advance(timedelta(days=1))  # the move's change would carry both to today first
    before = day(client)

    def full(*_args):
        raise WriteFailed("the disk is full: nothing was saved.")

    monkeypatch.setattr(store, "move_day_item", full)
    item = before["items"][1]["id"]
    response = client.post(f"/day/items/{item}/move", json={"to": 0})
    assert response.status_code == 503
    assert day(client) == before
    monkeypatch.undo()
    # The rollover written in the same change was rolled back with it.
    rows = store._db.execute("SELECT carried FROM day_items").fetchall()
    assert [r["carried"] for r in rows] == [0, 0]


def test_items_not_started_roll_over_to_today_as_carried(client, clock):
    add(client, "Left from yesterday", timebox_minutes=20)
    clock.advance(timedelta(days=1))
    body = day(client)
    assert body["date"] == clock.now().astimezone().date().isoformat()
    assert [(i["next_action"], i["carried"]) for i in body["items"]] == [
        ("Left from yesterday", True)
    ]
    add(client, "New today")  # a change writes the rollover; the flag stays
    assert [i["carried"] for i in day(client)["items"]] == [True, False]


def test_a_restart_keeps_the_queue(client, store, clock, tmp_path, make_app, fake_coach):
    add(client, "Survives", success_condition="Still here", timebox_minutes=10)
    before = day(client)
    store.close()
    again = SQLiteStore(tmp_path / "antidrift.db")
    try:
        controller = build_controller(again, clock)
        fresh = make_app(controller, fake_coach).test_client()
        assert day(fresh) == before
    finally:
        again.close()


def test_free_minutes_leave_out_the_calendars_events(tmp_path, clock, make_app, fake_coach):
    # 09:00 local on the test clock's day; a 30-minute meeting at 11:00, and one at 19:00
    # after the day ends.
    local = START.astimezone()
    nine = local.replace(hour=9, minute=0, second=0, microsecond=0)
    clock.set(nine)
    path = write(
        tmp_path / "work.ics",
        event("m@x", "Meeting", nine + timedelta(hours=2), None, minutes=30),
        event("e@x", "Dinner", nine + timedelta(hours=10), None, minutes=60),
    )
    kept = Calendar(tmp_path / "cache", clock)
    kept.configure(parse(str(path)))
    kept.refresh()
    s = SQLiteStore(tmp_path / "cal.db")
    try:
        client = make_app(build_controller(s, clock, calendar=kept), fake_coach).test_client()
        assert day(client)["free_minutes"] == 9 * 60 - 30
        add(client, "Long one", timebox_minutes=480)
        add(client, "Another", timebox_minutes=85)
        assert day(client)["planned_minutes"] == 565
        page = client.get("/day", headers=BROWSER).get_data(as_text=True)
        assert "55 min more than your free time." in page
        clock.set(nine + timedelta(hours=9, minutes=1))  # 18:01: the day is over
        assert day(client)["free_minutes"] == 0
    finally:
        s.close()


def test_the_page_lists_the_queue_and_htmx_gets_the_partial(client):
    add(client, "Write the intro", timebox_minutes=30)
    page = html(client.get("/day", headers=BROWSER).get_data(as_text=True))
    assert page.by_id("day-title") is not None
    assert [n.text() for n in page.iter() if n.get("class") == "day-action"] == ["Write the intro"]
    assert "Fits:" in page.by_id("day-fit").text()
    answer = client.post(
        "/day/items", data={"next_action": "Second", "timebox_minutes": ""}, headers=HX
    )
    assert answer.status_code == 201
    part = html(answer.get_data(as_text=True))
    assert part.by_id("day") is not None
    assert "Added: Second" in part.by_id("day-message").text()
    assert part.by_id("day-next-action").get("autofocus", "no") is None


def test_a_refusal_in_the_partial_keeps_what_was_typed(client):
    answer = client.post(
        "/day/items", data={"next_action": "", "timebox_minutes": "900"}, headers=HX
    )
    assert answer.status_code == 400
    part = html(answer.get_data(as_text=True))
    assert "Next action is required" in part.by_id("day-message").text()
    assert part.by_id("day-minutes").get("value") == "900"
    assert part.by_id("day-minutes").get("aria-invalid") == "true"
    assert day(client)["items"] == []


def test_a_plain_form_is_sent_back_to_the_day(client):
    response = client.post("/day/items", data={"next_action": "Plain"}, headers=BROWSER)
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/day")
    refused = client.post("/day/items", data={"next_action": ""}, headers=BROWSER)
    assert refused.status_code == 400
    assert "Next action is required" in refused.get_data(as_text=True)


def test_a_task_becomes_an_item_by_its_title(client, controller, monkeypatch):
    from antidrift.core.domain import TaskRef
    from antidrift.web import day as day_routes

    task = TaskRef("markdown", "todo.md:3", "Fix the login bug", None)

    class Board:
        def find(self, key):
            return task if key == "markdown:todo.md:3" else None

    monkeypatch.setattr(day_routes, "board", lambda: Board())
    response = client.post("/day/items", json={"task": "markdown:todo.md:3"})
    assert response.status_code == 201
    (item,) = day(client)["items"]
    assert (item["next_action"], item["success_condition"], item["timebox_minutes"]) == (
        "Fix the login bug",
        "",
        None,
    )


def test_the_locked_view_shows_next_up_and_plan_it_opens_planning_with_it(client, controller):
    add(client, "Write the intro", success_condition="Intro sent", timebox_minutes=30)
    add(client, "Review the PR")
    page = html(client.get("/", headers=BROWSER).get_data(as_text=True))
    assert page.by_id("next-up-action").text() == "Write the intro"
    first, second = (i["id"] for i in day(client)["items"])

    response = client.post("/planning", json={"day_item": first})
    assert response.status_code == 200
    state = response.get_json()
    assert state["runtime_state"] == "planning"
    draft = state["draft"]
    assert (draft["next_action"], draft["success_condition"], draft["timebox_minutes"]) == (
        "Write the intro",
        "Intro sent",
        "30",
    )
    started = client.post(
        "/commitment",
        json={
            "next_action": "Write the intro",
            "success_condition": "Intro sent",
            "timebox_minutes": 30,
        },
    )
    assert started.status_code == 200
    commitment = started.get_json()["commitment"]
    assert commitment["day_item_id"] == first
    assert [i["id"] for i in day(client)["items"]] == [second]
    assert controller.snapshot().commitment.day_item_id == first
    # Discarded, neither met nor missed: the item is back in the queue, in its place.
    assert client.post("/discard").status_code == 200
    assert [i["id"] for i in day(client)["items"]] == [first, second]


def test_the_day_ends_at_its_own_offset_on_a_day_the_clock_changes(monkeypatch):
    import time as clock_module
    from datetime import UTC, datetime

    monkeypatch.setenv("TZ", "Europe/Berlin")
    clock_module.tzset()
    try:
        # 29 March 2026: the clocks go forward at 02:00; at 01:30 (UTC+1) the day's 18:00 is
        # at UTC+2, 15 h 30 min of wall time later: 930 minutes, not 990.
        at = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
        end = day_end(at)
        assert end.astimezone().strftime("%H:%M") == "18:00"
        assert (end - at).total_seconds() / 60 == 930
    finally:
        monkeypatch.delenv("TZ")
        clock_module.tzset()


def test_plan_it_without_done_when_and_minutes_opens_with_the_default(client):
    add(client, "Review the PR")
    (item,) = day(client)["items"]
    draft = client.post("/planning", json={"day_item": item["id"]}).get_json()["draft"]
    assert (draft["next_action"], draft["success_condition"], draft["timebox_minutes"]) == (
        "Review the PR",
        "",
        "25",
    )


def test_plan_it_refusals_change_nothing(client, controller):
    add(client, "One")
    before = day(client)
    for body, status in [
        ({"day_item": "nope"}, 404),
        ({"day_item": 5}, 400),
        ({"day_item": "x" * 300}, 400),
    ]:
        response = client.post("/planning", json=body)
        assert response.status_code == status, body
        assert response.get_json()["error"]
        assert controller.snapshot().state is RuntimeState.LOCKED
    client.post("/planning", json={})
    response = client.post("/planning", json={"day_item": before["items"][0]["id"]})
    assert response.status_code == 409  # planning already
    assert day(client) == before


def test_a_start_without_plan_it_leaves_the_queue_alone(client):
    add(client, "One")
    before = day(client)
    client.post("/planning", json={})
    started = client.post(
        "/commitment",
        json={"next_action": "Other", "success_condition": "Done", "timebox_minutes": 5},
    )
    assert started.get_json()["commitment"]["day_item_id"] is None
    assert day(client) == before


def test_the_day_ends_when_the_setting_says_and_a_change_applies_at_once(tmp_path):
    """day_ends (ANTIDRIFT_DAY_ENDS, HH:MM): the free minutes count to it; a Save on the
    Settings page moves it without a restart; a time that is none is refused."""
    from antidrift.server import bootstrap
    from antidrift.server.app import create_app
    from antidrift.settings import SettingsError, load

    env = {"ANTIDRIFT_WINDOW_SOURCE": "off", "ANTIDRIFT_DAY_ENDS": "17:30"}
    with pytest.raises(SettingsError, match="HH:MM"):
        load({**env, "ANTIDRIFT_DAY_ENDS": "25:00"}, data_dir=tmp_path / "refused")
    settings = load({"ANTIDRIFT_WINDOW_SOURCE": "off"}, data_dir=tmp_path / "data")
    runtime = bootstrap.build_runtime(settings)
    try:
        app = create_app(settings, runtime=runtime)
        client = app.test_client()
        host = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
        assert runtime.controller.day.ends.strftime("%H:%M") == "18:00"
        answer = client.post("/settings", json={"day_ends": "16:45"}, headers=host)
        assert answer.status_code == 200 and answer.get_json()["day_ends"]["value"] == "16:45"
        assert runtime.controller.day.ends.strftime("%H:%M") == "16:45"
        bad = client.post("/settings", json={"day_ends": "5pm"}, headers=host)
        assert bad.status_code == 400 and "HH:MM" in bad.get_json()["error"]
    finally:
        runtime.stop()


def test_after_a_move_focus_lands_on_the_moved_items_up_or_down(client):
    """The moved item's Up takes focus (its Down when it became first; the heading when
    the queue has one item and no button is left)."""
    for text in ("One", "Two", "Three"):
        add(client, text)
    one, two, three = (i["id"] for i in day(client)["items"])

    def focused(answer) -> list[str]:
        """What htmx focuses after the swap: [autofocus], the closed popover's left out."""
        part = html(answer.get_data(as_text=True))
        shut = set(part.by_id("day-clear-confirm").iter())
        return [
            n.get("aria-label") or n.get("id")
            for n in part.iter()
            if "autofocus" in n.attrs and n not in shut
        ]

    moved = client.post(f"/day/items/{three}/move", data={"to": "up"}, headers=HX)
    assert moved.status_code == 200
    assert focused(moved) == ["Move up: Three"]
    moved = client.post(f"/day/items/{three}/move", data={"to": "up"}, headers=HX)
    assert focused(moved) == ["Move down: Three"]  # first now: no Up
    moved = client.post(f"/day/items/{one}/move", data={"to": "0"}, headers=HX)
    assert focused(moved) == ["Move down: One"]
    client.post(f"/day/items/{two}/delete")
    client.post(f"/day/items/{three}/delete")
    alone = client.post(f"/day/items/{one}/move", data={"to": "up"}, headers=HX)
    assert focused(alone) == ["day-title"]


def test_what_a_change_says_goes_to_the_live_region_outside_the_swap(client):
    """The partial's #day has no message; the answer fills #day-message (role=status, on the
    page outside #day) out of band, its children only."""
    page = html(client.get("/day", headers=BROWSER).get_data(as_text=True))
    region = page.by_id("day-message")
    assert region.get("role") == "status"
    assert region.get("hx-swap-oob") is None
    assert page.by_id("day").by_id("day-message") is None  # not in what is swapped

    answer = client.post("/day/items", data={"next_action": "Second"}, headers=HX)
    part = html(answer.get_data(as_text=True))
    assert part.by_id("day").by_id("day-message") is None
    said = part.by_id("day-message")
    assert said.get("hx-swap-oob") == "innerHTML"
    assert said.text() == "Added: Second"
    refused = client.post("/day/items", data={"next_action": ""}, headers=HX)
    said = html(refused.get_data(as_text=True)).by_id("day-message")
    assert "Next action is required" in said.text()
    assert said.get("hx-swap-oob") == "innerHTML"


def test_clear_asks_first_in_a_popover(client):
    add(client, "One")
    add(client, "Two")
    page = html(client.get("/day", headers=BROWSER).get_data(as_text=True))
    (opener,) = [n for n in page.find_all("button") if n.text() == "Clear the day"]
    assert opener.get("type") == "button"
    assert opener.get("popovertarget") == "day-clear-confirm"
    pop = page.by_id("day-clear-confirm")
    assert "popover" in pop.attrs and pop.get("role") == "dialog"
    assert "2 items not started leave the queue" in pop.text()
    buttons = {n.text(): n for n in pop.iter() if n.tag == "button"}
    assert buttons["Clear"].get("type") == "submit"
    keep = buttons["Keep them"]
    assert keep.get("popovertargetaction") == "hide" and "autofocus" in keep.attrs
    assert len(day(client)["items"]) == 2  # asking changed nothing
