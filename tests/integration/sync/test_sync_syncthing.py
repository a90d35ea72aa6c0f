"""The sync folder carried by two real Syncthing daemons (loopback only, in a private network
namespace: tests/support/syncthing.py): what machine A writes, machine B reads and verifies;
a conflicting `now` leaves Syncthing's conflict copy, which B ignores and leaves in place."""

from __future__ import annotations

import shutil
import time

from antidrift.sync import (
    DeviceWriter,
    FolderReader,
    HybridClock,
    Keyring,
    SyncRecord,
    device_id,
    unlock,
)
from antidrift.sync.folder import device_dir
from tests.support import syncthing
from tests.support.require import need

PASSPHRASE = "two machines, one passphrase"


def test_what_one_machine_writes_syncthing_carries_and_the_other_verifies(tmp_path):
    need(not syncthing.missing(), syncthing.missing() or "")
    started = time.monotonic()
    with syncthing.two_syncthings(tmp_path) as pair:
        # Machine A: its data dir, its id and key; a segment, the manifest and `now`.
        a_data = tmp_path / "a-data"
        a = device_id(a_data)
        a_keys = Keyring(a_data)
        unlock(a_keys, pair.a_dir, a, PASSPHRASE, fast=True)
        clock = HybridClock(a)
        writer = DeviceWriter(pair.a_dir, a_data, a, a_keys.get(a), name="laptop")
        written = [
            SyncRecord(a, "commitment:1", clock.now(), "commitment", {"outcome": "done"}),
            SyncRecord(a, "rule:1", clock.now(), "rule", None),
        ]
        writer.append(written)
        writer.publish({"state": "active", "next_action": "Write the intro"}, clock.now())
        copied_at = time.monotonic()
        pair.scan("a")

        # Machine B: its own id; the passphrase opens A's key once A's keyparams are there.
        b_data = tmp_path / "b-data"
        b = device_id(b_data)
        b_keys = Keyring(b_data)
        a_on_b = device_dir(pair.b_dir, a)
        assert pair.wait_for(a_on_b / "keyparams")
        unlock(b_keys, pair.b_dir, b, PASSPHRASE, fast=True)
        reader = FolderReader(pair.b_dir, b_data, b, b_keys)
        found = []

        def verified() -> bool:
            if reader.changed():
                found[:] = [reader.read()]
            return bool(found) and bool(found[0].arrived) and bool(found[0].elsewhere)

        assert pair.wait_until(verified), found and found[0].skipped
        carried_s = time.monotonic() - copied_at
        (segment,) = found[0].arrived
        assert list(segment.records) == written and found[0].skipped == ()
        assert found[0].elsewhere[0].body["next_action"] == "Write the intro"
        assert found[0].peers[0].name == "laptop"

        # A conflict on `now`: A and a copy of A's data dir on B's side edit it apart.
        shutil.copytree(a_data, tmp_path / "a-copy-data")
        pair.pause()
        assert pair.wait_until(lambda: not pair.connected())
        writer.publish({"state": "active", "next_action": "From A"}, clock.now())
        copy = DeviceWriter(pair.b_dir, tmp_path / "a-copy-data", a, a_keys.get(a), "laptop")
        time.sleep(0.02)  # the copy's edit is the newer one
        copy.publish({"state": "paused", "next_action": "From the copy"}, clock.now())
        pair.scan("a")
        pair.scan("b")
        pair.resume()

        def conflicted() -> list:
            return sorted(a_on_b.glob("now.sync-conflict-*"))

        assert pair.wait_until(lambda: conflicted() and pair.a.idle() and pair.b.idle())
        (leftover,) = conflicted()
        kept = leftover.read_bytes()
        assert pair.wait_until(verified)
        after = reader.read(imported={segment.sha256})
        assert after.skipped == () and after.arrived == ()
        assert after.elsewhere[0].body["next_action"] in ("From A", "From the copy")
        assert leftover.read_bytes() == kept  # ignored, and left where it was
        conflict_s = time.monotonic() - copied_at - carried_s
        print(
            f"\nsyncthing: set-up {pair.setup_s:.2f} s, A->B verified {carried_s:.2f} s, "
            f"conflict {conflict_s:.2f} s, whole test {time.monotonic() - started:.2f} s"
        )


def test_two_servers_share_their_history_through_syncthing(tmp_path):
    """The whole path with the real carrier, the laptop's clock a day ahead of the desk's
    (the test clock, sync's stamps included): a commitment ended on the desk is in the
    laptop's history and week, and a rule the desk made and the laptop removed is gone on
    the desk, each after one carry each way."""
    from tests.support.sync import HOST, Machine

    need(not syncthing.missing(), syncthing.missing() or "")
    with syncthing.two_syncthings(tmp_path) as pair:
        desk = Machine(tmp_path / "desk", pair.a_dir, "desk")
        laptop = Machine(tmp_path / "laptop", pair.b_dir, "laptop", ahead=86_400)
        try:
            ended = desk.commit("Write the intro")
            rule = {"app": "slack", "verdict": "off_task"}
            made = desk.client.post("/rules", json=rule, headers=HOST).get_json()["id"]
            desk.sync.tick()
            laptop.sync.tick()  # its keyparams, for the desk to derive its key
            pair.scan("a")
            pair.scan("b")

            def rules(machine) -> list[str]:
                return [r["id"] for r in machine.client.get("/rules", headers=HOST).get_json()]

            def arrived() -> bool:
                laptop.sync.tick()
                return [r["id"] for r in laptop.history()] == [ended] and rules(laptop) == [made]

            assert pair.wait_until(arrived, timeout=30)
            assert laptop.history()[0]["device"] == "desk"
            assert laptop.sync.status().skipped == []
            # In the laptop's week, on the desk's day: the laptop's today is a day later.
            days = laptop.client.get("/week.json", headers=HOST).get_json()["days"]
            assert [d["met"] for d in days] == [0, 0, 0, 0, 0, 1, 0]

            # The laptop removes the desk's rule: gone on the desk too.
            assert laptop.client.post(f"/rules/{made}/delete", headers=HOST).status_code == 200
            laptop.sync.tick()
            pair.scan("b")

            def gone() -> bool:
                desk.sync.tick()
                return rules(desk) == []

            assert pair.wait_until(gone, timeout=30), desk.sync.status()
            assert desk.sync.status().skipped == [] and desk.sync.status().problem is None
            assert [r["device"] for r in desk.history()] == ["desk"]
        finally:
            desk.stop()
            laptop.stop()
