"""The day's queue on two machines, one sync folder (issue 43 item 5): one queue on both —
items added at once on each are all kept, in one order on both; a move on one is the other's
order; a removal and a concurrent move end the same on both; an item started on both at
once leaves both queues and both commitments stand; the locked view's Next up and an open
/day follow what was taken in. And what an ended commitment's review showed travels with it
(issue 42 item 3): its verdicts, episodes and figures on the other machine, named by the
machine it ran on; a record without them is taken as before. Two real servers' runtimes over
their own data directories, their sync looked at by hand (`tick`)."""

from __future__ import annotations

import uuid
from datetime import date, datetime

import pytest

from antidrift.core.day import MAX_ITEMS, MAX_STORED, DayItem, record_of
from antidrift.core.drift_records import Episode, Judgement, Source, Verdict, Window
from antidrift.core.order_key import spread
from antidrift.sync import DeviceWriter, HybridClock, Keyring, SyncRecord, device_id, unlock
from antidrift.sync.hlc import Stamp, wall_ms
from antidrift.web.views import Shows
from tests.support.html import parse
from tests.support.records import ended
from tests.support.sync import HOST, Machine


@pytest.fixture
def machines(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    made = []

    def make(name):
        machine = Machine(tmp_path / name, folder, name)
        made.append(machine)
        return machine

    yield make
    for machine in made:
        machine.stop()


def actions(machine: Machine) -> list[str]:
    return [i["next_action"] for i in machine.queue()]


def test_items_added_on_both_at_once_are_all_kept_in_one_order_on_both(machines):
    desk, laptop = machines("desk"), machines("laptop")
    desk.add_item("Write the intro")
    desk.tick(laptop)
    assert actions(laptop) == ["Write the intro"]
    desk.add_item("Answer the mail")  # at once, each after the one item both have
    laptop.add_item("Review the PR")
    desk.tick(laptop, desk)
    assert len(actions(desk)) == 3 and actions(desk) == actions(laptop)
    assert [i["id"] for i in desk.queue()] == [i["id"] for i in laptop.queue()]
    # A move on one is the other's order.
    last = laptop.queue()[-1]["id"]
    moved = laptop.client.post(f"/day/items/{last}/move", json={"to": 0}, headers=HOST)
    assert moved.status_code == 200
    laptop.tick(desk)
    assert desk.queue()[0]["id"] == last and actions(desk) == actions(laptop)


def test_a_removal_and_a_move_made_at_once_end_the_same_on_both(machines):
    desk, laptop = machines("desk"), machines("laptop")
    first, second = desk.add_item("First"), desk.add_item("Second")
    desk.tick(laptop)
    assert desk.client.post(f"/day/items/{second}/delete", headers=HOST).status_code == 200
    moved = laptop.client.post(f"/day/items/{second}/move", json={"to": 0}, headers=HOST)
    assert moved.status_code == 200
    desk.tick(laptop, desk)
    assert desk.queue() == laptop.queue()  # the later change won on both
    stamps = {m.runtime.store.sync_stamp(f"day_item:{second}") for m in (desk, laptop)}
    [later] = stamps  # both keep the later change's stamp: the desk's removal or the move
    removed = later.endswith(desk.sync.me)
    assert actions(desk) == (["First"] if removed else ["Second", "First"])
    # A clear is a removal of each: gone on the other too.
    assert laptop.client.post("/day/clear", headers=HOST).status_code == 200
    laptop.tick(desk)
    assert desk.queue() == [] and first not in [i["id"] for i in desk.queue()]


def test_an_item_started_on_both_at_once_leaves_both_queues_and_both_commitments_stand(
    machines,
):
    desk, laptop = machines("desk"), machines("laptop")
    item = desk.add_item("Write the intro")
    desk.add_item("Answer the mail")
    desk.tick(laptop)
    desk.start_item(item)
    laptop.start_item(item)
    desk.tick(laptop, desk)
    assert actions(desk) == actions(laptop) == ["Answer the mail"]
    desk.end("met")
    laptop.end("missed")
    desk.tick(laptop, desk)
    for machine in (desk, laptop):
        rows = machine.history()
        assert len(rows) == 2 and {r["device"] for r in rows} == {"desk", "laptop"}
        assert actions(machine) == ["Answer the mail"]
        tally = machine.client.get("/day.json", headers=HOST).get_json()["tally"]
        assert (tally["planned"], tally["met"]) == (2, 1)


def test_an_edit_made_elsewhere_that_did_not_know_of_a_start_never_undoes_it(machines):
    """The desk starts an item; the laptop, not seeing it yet, moves it and then deletes it,
    each with a later stamp (its clock a minute ahead): the start stands on the desk, goes
    out again and wins on the laptop, and the day's end counts it on both."""
    desk, laptop = machines("desk"), machines("laptop")
    desk.add_item("Write the intro")
    item = desk.add_item("Answer the mail")
    desk.tick(laptop)
    laptop.sync._clock.merge(Stamp(wall_ms() + 60_000, 0, "ahead"))  # clocks differ
    desk.start_item(item)
    desk.tick()  # the start is in the folder
    moved = laptop.client.post(f"/day/items/{item}/move", json={"to": 0}, headers=HOST)
    assert moved.status_code == 200
    laptop.tick(desk)  # the move goes out, later than the start, and the desk takes it
    assert desk.runtime.store.day_item(item).started_at is not None
    assert laptop.client.post(f"/day/items/{item}/delete", headers=HOST).status_code == 200
    laptop.tick(desk, laptop, desk, laptop)  # the removal; the start again, until it wins
    for machine in (desk, laptop):
        assert machine.runtime.store.day_item(item).started_at is not None
        assert actions(machine) == ["Write the intro"]
    desk.end("met")
    desk.tick(laptop)
    for machine in (desk, laptop):
        tally = machine.client.get("/day.json", headers=HOST).get_json()["tally"]
        assert (tally["planned"], tally["met"], tally["carried"]) == (2, 1, 1)


def _another_machine(folder, root, name: str) -> tuple[str, HybridClock, DeviceWriter]:
    """A machine that only writes to the folder (an older AntiDrift, or a faulty one)."""
    me = device_id(root)
    keys = Keyring(root)
    unlock(keys, folder, me, "correct horse battery staple", fast=True, peers=False)
    return me, HybridClock(me), DeviceWriter(folder, root, me, keys.get(me), name=name)


def test_another_machine_s_items_past_the_bound_are_refused_and_said(machines, tmp_path):
    """At most MAX_STORED items not started are kept (the rest named in /sync.json's
    skipped), an item not named by a UUID is refused; a queue past MAX_ITEMS takes no add
    here, and says why, on the page and in the refusal."""
    laptop = machines("laptop")
    me, clock, writer = _another_machine(tmp_path / "Sync", tmp_path / "other", "other")
    today = date.today()
    at = datetime.now().astimezone()
    ids = [str(uuid.uuid4()) for _ in range(MAX_STORED + 3)]
    ids[7] = "not/a-uuid"
    items = [
        DayItem(i, today, f"Item {n}", "", None, 0, at, order=key)
        for n, (i, key) in enumerate(zip(ids, spread(len(ids)), strict=True))
    ]
    writer.append(
        [SyncRecord(me, f"day_item:{i.id}", clock.now(), "day_item", record_of(i)) for i in items]
    )
    laptop.sync.tick()
    whys = [s["why"] for s in laptop.client.get("/sync.json", headers=HOST).get_json()["skipped"]]
    assert whys == [
        "holds a day item refused here",
        f"holds 2 day item(s) past the {MAX_STORED} a day keeps; left out",
    ]
    assert len(laptop.queue()) == MAX_STORED
    added = laptop.client.post("/day/items", json={"next_action": "One more"}, headers=HOST)
    said = f"at most {MAX_ITEMS} items, and has {MAX_STORED} with those from your other machines"
    assert added.status_code == 409 and said in added.get_json()["error"]
    page = laptop.client.get("/day", headers={**HOST, "Accept": "text/html"})
    assert said in parse(page.get_data(as_text=True)).by_id("day-full").text()
    gone = laptop.queue()[0]["id"]  # a delete still works, as a move does
    assert laptop.client.post(f"/day/items/{gone}/delete", headers=HOST).status_code == 200


def test_next_up_and_an_open_day_page_follow_what_was_taken_in(machines):
    desk, laptop = machines("desk"), machines("laptop")
    hub = laptop.client.application.extensions["antidrift.hub"]
    locked = hub.connect(Shows.of(laptop.runtime.controller.snapshot()))
    day = hub.connect(Shows(state="day"))
    while locked.next(0) or day.next(0):  # what connecting brought
        pass
    desk.add_item("Write the intro")
    desk.tick(laptop)
    pushed = parse(locked.next(1) or "")
    assert "Write the intro" in pushed.by_id("next-up").text()
    listed = parse(day.next(1) or "").by_id("day-items")
    assert listed is not None and "Write the intro" in listed.text()
    # A change made here is answered with the whole of #day: no list is pushed for it.
    laptop.add_item("Answer the mail")
    assert day.next(0) is None
    hub.disconnect(locked)
    hub.disconnect(day)


def _watched(machine: Machine, commitment_id: str) -> None:
    """What the drift guard would have kept for an ended commitment: verdicts, an episode,
    the figures (written as the guard writes them, in one change)."""
    store, entry = machine.runtime.store, machine.runtime.store.entry(commitment_id)
    with machine.runtime.controller.work:
        store.save_judgement(
            commitment_id, Window("code", "main.py"), Judgement(Verdict.ON_TASK, "the code")
        )
        store.save_judgement(
            commitment_id,
            Window("firefox", "News"),
            Judgement(Verdict.OFF_TASK, "news", Source.JUDGE),
        )
        store.save_episode(
            commitment_id,
            Episode(1, entry.started_at, entry.started_at, "firefox", "News", "news"),
        )
        store.save_drift_summary(commitment_id, 1, 0.8)


def test_what_a_review_showed_travels_with_its_commitment(machines):
    desk, laptop = machines("desk"), machines("laptop")
    watched = desk.commit("Write the intro")
    _watched(desk, watched)
    desk.tick(laptop)
    [row] = laptop.history()
    assert (row["drift_count"], row["on_task_share"], row["device"]) == (1, 0.8, "desk")
    assert [e["number"] for e in row["episodes"]] == [1]
    [episode] = laptop.runtime.store.episodes(watched)
    assert (episode.app, episode.title) == ("firefox", "News")
    verdicts = laptop.runtime.store.judgements(watched)
    assert {w.app: j.verdict for w, j in verdicts.items()} == {
        "code": Verdict.ON_TASK,
        "firefox": Verdict.OFF_TASK,
    }
    insights = parse(laptop.client.get("/insights", headers=HOST).get_data(as_text=True))
    [meta] = insights.by_id(f"entry-{watched}").find_all("p", **{"class": "history-meta"})
    meta = meta.text()
    assert "80% on task" in meta and "1 drift" in meta and "on desk" in meta
    # A correction made on the laptop comes back; the desk keeps its own evidence.
    fixed = {"outcome": "missed", "note": "not quite"}
    assert laptop.client.post(f"/history/{watched}", json=fixed, headers=HOST).status_code == 200
    laptop.tick(desk)
    [mine] = desk.history()
    assert (mine["outcome"], mine["drift_count"], len(mine["episodes"])) == ("missed", 1, 1)


def test_a_record_without_the_review_s_evidence_is_taken_as_before(machines, tmp_path):
    laptop = machines("laptop")
    me, clock, writer = _another_machine(tmp_path / "Sync", tmp_path / "older", "older")
    body = ended("c-1", me, "older", apps=[["code", 1500.0]])
    writer.append([SyncRecord(me, "commitment:c-1", clock.now(), "commitment", body)])
    laptop.sync.tick()
    [row] = laptop.history()
    assert (row["id"], row["device"], row["drift_count"], row["episodes"]) == (
        "c-1",
        "older",
        0,
        [],
    )
    assert laptop.client.get("/sync.json", headers=HOST).get_json()["skipped"] == []
