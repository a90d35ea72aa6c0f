"""Two machines, each with its OWN sync folder, and between them a sync tool that misbehaves
(tests/support/copier.py): it tears a file, delivers one twice, delivers a newer file before
an older one, and leaves conflict copies and temporaries beside the real files. After rounds
of commitments, a correction, a removal and rule changes on both sides, both machines hold the
same history and rules; no segment is taken twice; a torn file is named in `skipped`, then
taken once whole; the leftovers are never read, named or removed. The desk's clock runs a day
ahead of the laptop's: what the laptop changes after seeing the desk's still wins."""

from __future__ import annotations

from collections import Counter

from tests.support.copier import Copier, disturbed, leftovers_beside
from tests.support.sync import HOST, Machine

DAY = 86_400.0


def _counting(machine: Machine) -> Counter:
    """Each segment this machine takes in, counted by its SHA-256."""
    taken: Counter = Counter()
    importer = machine.sync.importer
    take = importer.take

    def counted(segment):
        taken[segment.sha256] += 1
        return take(segment)

    importer.take = counted
    return taken


def _skipped(machine: Machine) -> list[tuple[str, str]]:
    status = machine.client.get("/sync.json", headers=HOST).get_json()
    return [(s["file"], s["why"]) for s in status["skipped"]]


def _rules(machine: Machine) -> list[tuple]:
    rules = machine.client.get("/rules", headers=HOST).get_json()
    return sorted((r["id"], r["app"], r["verdict"]) for r in rules)


def _history(machine: Machine) -> list[tuple]:
    keys = ("id", "next_action", "outcome", "note", "device")
    return sorted(tuple(r[k] for k in keys) for r in machine.history())


def test_a_sync_tool_that_tears_duplicates_reorders_and_conflict_copies(tmp_path):
    a_folder, b_folder = tmp_path / "DeskSync", tmp_path / "LaptopSync"
    a_folder.mkdir()
    b_folder.mkdir()
    desk = Machine(tmp_path / "desk", a_folder, "desk", ahead=DAY)
    laptop = Machine(tmp_path / "laptop", b_folder, "laptop")
    to_laptop = Copier(a_folder, b_folder, desk.sync.me)
    to_desk = Copier(b_folder, a_folder, laptop.sync.me)
    on_laptop, on_desk = _counting(laptop), _counting(desk)
    left = {}
    try:
        # Round 1: each commits; the desk adds a rule. The desk's segment arrives torn.
        first = desk.commit("Write the intro", "missed")
        laptop_first = laptop.commit("Answer the mail")
        slack = desk.client.post(
            "/rules", json={"app": "slack", "verdict": "off_task"}, headers=HOST
        )
        slack = slack.get_json()["id"]
        desk.tick()
        laptop.tick()
        (torn,) = to_laptop.segments()
        to_laptop.tear(torn)
        to_laptop.carry(*[n for n in to_laptop.changed() if n != torn])
        left |= to_laptop.leave_leftovers()
        left |= leftovers_beside(b_folder, laptop.sync.me)  # in the laptop's own folder too
        to_desk.carry(twice=True)
        left |= to_desk.leave_leftovers()
        laptop.tick()
        desk.tick()
        assert _skipped(laptop) == [
            (
                f"devices/{desk.sync.me}/{torn}",
                "is not complete yet, or was changed (its checksum differs)",
            )
        ]
        assert [r[0] for r in _history(laptop)] == [laptop_first]
        assert laptop.sync.status().problem is None  # its own folder's leftovers: no alarm
        assert {r[0] for r in _history(desk)} == {first, laptop_first}
        to_laptop.carry(torn)  # whole now
        laptop.tick()
        assert _skipped(laptop) == []
        assert {r[0] for r in _history(laptop)} == {first, laptop_first}
        assert _rules(laptop) == _rules(desk) == [(slack, "slack", "off_task")]

        # Round 2: two more on the desk, delivered newest first: the manifest before its
        # segments, the newer segment before the older, then the older manifest late.
        second = desk.commit("Draft the plan")
        desk.tick()
        older_manifest = to_laptop.read("manifest")
        third = desk.commit("Send the draft")
        desk.tick()
        older, newer = to_laptop.changed()[:2]
        assert older < newer and older.startswith("segments/")
        to_laptop.carry("manifest", "now")
        laptop.tick()
        waiting = {f for f, why in _skipped(laptop) if why == "has not arrived yet"}
        assert waiting == {f"devices/{desk.sync.me}/{n}" for n in (older, newer)}
        to_laptop.carry(newer)
        laptop.tick()
        assert third in {r[0] for r in _history(laptop)}
        assert second not in {r[0] for r in _history(laptop)}
        to_laptop.deliver("manifest", older_manifest)  # an old copy brought back
        to_laptop.carry(older)
        laptop.tick()
        assert [why for _, why in _skipped(laptop)] == [
            "is older than one read before (a sync tool brought back an old copy)"
        ]
        to_laptop.carry("manifest")
        laptop.tick()
        assert _skipped(laptop) == []
        assert {r[0] for r in _history(laptop)} == {first, laptop_first, second, third}

        # `now` before the segment it names: the desk runs a commitment, then ends it.
        assert desk.client.post("/planning", headers=HOST).status_code == 200
        plan = {
            "next_action": "Review the week",
            "success_condition": "Done",
            "timebox_minutes": 25,
        }
        assert desk.client.post("/commitment", json=plan, headers=HOST).status_code == 200
        desk.tick()
        to_laptop.carry("now")
        laptop.tick()
        [there] = laptop.client.get("/state", headers=HOST).get_json()["elsewhere"]
        assert there["next_action"] == "Review the week"  # a day ahead: still seen as fresh
        running = there["commitment_id"]
        assert running not in {r[0] for r in _history(laptop)}  # not ended: not in history

        # Round 3: on both sides at once — the laptop corrects the desk's first commitment
        # and removes the desk's rule (the desk's stamps are a day ahead of its clock), and
        # adds one; the desk removes one commitment, ends the running one and adds a rule.
        fixed = {"outcome": "met", "note": "done after all"}
        assert laptop.client.post(f"/history/{first}", json=fixed, headers=HOST).status_code == 200
        assert laptop.client.post(f"/rules/{slack}/delete", headers=HOST).status_code == 200
        news = laptop.client.post(
            "/rules", json={"app": "news", "verdict": "off_task"}, headers=HOST
        )
        news = news.get_json()["id"]
        assert desk.client.post(f"/history/{second}/delete", headers=HOST).status_code == 200
        desk.end()
        tube = desk.client.post(
            "/rules", json={"app": "youtube", "verdict": "off_task"}, headers=HOST
        )
        tube = tube.get_json()["id"]
        desk.tick()
        laptop.tick()
        for _ in range(2):  # the tool catches up, delivering everything twice
            to_laptop.carry(twice=True)
            to_desk.carry(twice=True)
            left |= to_laptop.leave_leftovers() | to_desk.leave_leftovers()
            desk.tick()
            laptop.tick()

        assert _history(desk) == _history(laptop)
        rows = {r[0]: r for r in _history(laptop)}
        assert set(rows) == {first, laptop_first, third, running}  # `second` removed
        assert rows[first][2:] == ("met", "done after all", "desk")
        assert rows[running][1:] == ("Review the week", "met", "", "desk")
        assert rows[laptop_first][4] == "laptop"
        assert _rules(desk) == _rules(laptop)
        assert {r[1] for r in _rules(desk)} == {"news", "youtube"}  # slack gone on the desk too
        assert {news, tube} == {r[0] for r in _rules(laptop)}
        # No segment taken twice, though read again after every delivery.
        assert on_laptop and max(on_laptop.values()) == 1
        assert on_desk and max(on_desk.values()) == 1
        # The leftovers: all where they were, as they were, and never named.
        assert left and disturbed(left) == []
        assert _skipped(laptop) == [] and _skipped(desk) == []
        assert laptop.sync.status().problem is None and desk.sync.status().problem is None
    finally:
        desk.stop()
        laptop.stop()
