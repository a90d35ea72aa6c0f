"""Sync when the folder or another machine misbehaves (a review's findings): a record of a
kind this version does not know, a machine with another passphrase, a folder that is not
there, a paused commitment's `now`, a sync folder the settings cannot place — each said in a
sentence, none stops the rest, none is a 5xx."""

from __future__ import annotations

from antidrift.core.ports import KINDS
from antidrift.sync import DeviceWriter, HybridClock, Keyring, SyncRecord, device_id, unlock
from tests.support.records import ended
from tests.support.sync import HOST, Machine

PASSPHRASE = "correct horse battery staple"


def _stranger(folder, root, passphrase: str, records=()) -> str:
    """A machine that wrote into the folder with `passphrase`: its id."""
    me = device_id(root)
    keys = Keyring(root)
    unlock(keys, folder, me, passphrase, fast=True, peers=False)
    writer = DeviceWriter(folder, root, me, keys.get(me), name="stranger")
    clock = HybridClock(me)
    writer.append([SyncRecord(me, rid, clock.now(), kind, body) for rid, kind, body in records])
    writer.publish({"state": "locked"}, clock.now())  # its folder, with its keyparams
    return me


def test_a_machine_with_another_passphrase_never_stops_the_others(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    desk = Machine(tmp_path / "desk", folder, "desk")
    laptop = Machine(tmp_path / "laptop", folder, "laptop")
    try:
        desk.commit("First")
        desk.sync.tick()
        laptop.sync.tick()
        _stranger(folder, tmp_path / "stranger", "another passphrase entirely")
        second = desk.commit("Second")
        desk.sync.tick()
        laptop.sync.tick()
        laptop.sync.tick()  # tried once: its key derivation is not run at every look
        assert second in [r["id"] for r in laptop.history()]
        problem = laptop.sync.status().problem
        assert problem and "passphrase" in problem
        assert laptop.sync._tried is not None
    finally:
        desk.stop()
        laptop.stop()


def test_records_this_version_does_not_know_are_said_and_the_rest_taken(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    laptop = Machine(tmp_path / "laptop", folder, "laptop")
    try:
        laptop.sync.tick()
        body = ended("c-1", next_action="From a newer machine")
        stranger = tmp_path / "newer"
        me = device_id(stranger)
        records = [
            ("plan:p-1", "plan", {"what": "a kind this version does not know"}),
            ("commitment:c-1", "commitment", {**body, "device_id": me, "device": "newer"}),
        ]
        _stranger(folder, stranger, PASSPHRASE, records)
        laptop.sync.tick()
        assert [r["id"] for r in laptop.history()] == ["c-1"]
        skipped = laptop.client.get("/sync.json", headers=HOST).get_json()["skipped"]
        assert [s["why"] for s in skipped] == [
            "holds 1 record(s) this version of AntiDrift does not know"
        ]
        assert "/segments/" in skipped[0]["file"]
        # Its file is not marked taken whole: this version does not read it again, a version
        # that knows plans does (the commitment in it not taken twice), and then it is.
        store, newer = laptop.runtime.store, KINDS | {"plan"}
        laptop.sync._force_read = True
        laptop.sync.tick()
        assert laptop.sync.status().skipped == [] and not store.imported_segments(newer)
        laptop.sync.importer.known = newer
        laptop.sync._force_read = True
        laptop.sync.tick()
        assert len(store.imported_segments(newer)) == 1 and len(laptop.history()) == 1
    finally:
        laptop.stop()


def test_a_sync_folder_that_is_not_there_is_said_and_never_made(tmp_path):
    gone = tmp_path / "Unmounted" / "Sync"
    laptop = Machine(tmp_path / "laptop", gone, "laptop")
    try:
        laptop.sync.tick()
        assert "is not there" in laptop.sync.status().problem
        assert not gone.exists()
        answer = laptop.client.get("/sync.json", headers=HOST)
        assert answer.status_code == 200 and "is not there" in answer.get_json()["problem"]
    finally:
        laptop.stop()


def test_a_paused_commitment_is_still_said_every_minute(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    desk = Machine(tmp_path / "desk", folder, "desk")
    try:
        desk.client.post("/planning", headers=HOST)
        desk.client.post(
            "/commitment",
            json={"next_action": "Write", "success_condition": "Done", "timebox_minutes": 25},
            headers=HOST,
        )
        desk.client.post("/pause", headers=HOST)
        desk.sync.tick()
        first = desk.sync._published_at
        later = first + 61
        desk.sync._wall = lambda: later
        desk.sync.tick()
        assert desk.sync._published_at == later  # written again, though paused
    finally:
        desk.stop()


def test_a_sync_folder_the_settings_cannot_place_is_a_sentence(tmp_path, serve):
    client, _ = serve()
    for value in ("~nosuchuser-antidrift/Sync",):
        answer = client.post("/settings", json={"sync_folder": value}, headers=HOST)
        assert answer.status_code == 400, answer.get_data(as_text=True)
        assert "sync_folder" in answer.get_json()["error"]
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    answer = client.post("/settings", json={"sync_folder": str(loop / "x")}, headers=HOST)
    assert answer.status_code == 400, answer.get_data(as_text=True)
