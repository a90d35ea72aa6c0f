"""Settings shared across machines (issue 42): those their row marks shared (breaks, away,
private titles) saved on one machine are saved on the other; a variable set on a machine still
wins there; one going back to its default goes back there too; others never travel."""

from __future__ import annotations

import json

from antidrift.sync import Keyring
from tests.support.html import parse
from tests.support.sync import HOST, Machine


def test_a_shared_setting_saved_on_one_machine_is_saved_on_the_other(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    desk = Machine(tmp_path / "desk", folder, "desk")
    laptop = Machine(tmp_path / "laptop", folder, "laptop")
    strict = Machine(tmp_path / "strict", folder, "strict", env={"ANTIDRIFT_BREAK_MINUTES": "7"})
    try:
        for machine in (desk, laptop, strict):
            machine.sync.tick()
        saved = {"break_minutes": 12, "drift_grace": 20, "evidence_exclude": "bank"}
        assert desk.client.post("/settings", json=saved, headers=HOST).status_code == 200
        desk.sync.tick()
        laptop.sync.tick()
        strict.sync.tick()
        now = laptop.runtime.settings.current()
        assert (now.break_minutes, now.source("break_minutes")) == (12, "saved")
        assert now.evidence_exclude is not None and now.evidence_exclude.pattern == "bank"
        assert now.drift_grace == 60.0  # not shared: this machine's own
        kept = json.loads((tmp_path / "laptop" / "data" / "settings.json").read_text())
        assert kept == {"break_minutes": 12, "evidence_exclude": "bank"}
        there = strict.runtime.settings.current()
        assert (there.break_minutes, there.source("break_minutes")) == (7, "environment")
        assert there.evidence_exclude.pattern == "bank"
        # Taken from another machine, not sent back as this one's own change.
        assert laptop.runtime.store.sync_outbox() == []
        # Back to its default on the laptop: the desk forgets its value too.
        forget = {"break_minutes": None}
        assert laptop.client.post("/settings", json=forget, headers=HOST).status_code == 200
        laptop.sync.tick()
        desk.sync.tick()
        mine = desk.runtime.settings.current()
        assert (mine.break_minutes, mine.source("break_minutes")) == (5, "default")
    finally:
        for machine in (desk, laptop, strict):
            machine.stop()


def test_the_passphrase_entered_on_the_settings_page_is_used_and_never_kept(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    desk = Machine(tmp_path / "desk", folder, "desk")
    laptop = Machine(
        tmp_path / "laptop", folder, "laptop", env={"ANTIDRIFT_SYNC_PASSPHRASE_FILE": ""}
    )
    page = {**HOST, "Accept": "text/html"}
    try:
        desk.commit("Write the intro")
        desk.sync.tick()
        laptop.sync.tick()
        assert "passphrase" in laptop.sync.status().problem and laptop.history() == []
        html = laptop.client.get("/settings").get_data(as_text=True)
        field = parse(html).by_id("set-sync_passphrase")
        assert field.get("type") == "password" and field.get("value") == ""
        wrong = {"sync_passphrase": "not the passphrase", "break_minutes": "9"}
        answer = laptop.client.post("/settings", data=wrong, headers=page)
        assert answer.status_code == 400
        doc = parse(answer.get_data(as_text=True))
        said = doc.by_id("error-sync_passphrase").text()
        assert said.startswith("Sync passphrase: The sync passphrase does not open")
        assert doc.by_id("set-sync_passphrase").get("value") == ""  # never shown back
        assert laptop.runtime.settings.current().source("break_minutes") == "default"
        right = {"sync_passphrase": "correct horse battery staple"}
        # The right passphrase beside a refused value: nothing saved, no key kept either.
        both = {**right, "break_minutes": "banana"}
        assert laptop.client.post("/settings", data=both, headers=page).status_code == 400
        assert desk.sync.me not in Keyring(tmp_path / "laptop" / "data").devices()
        assert laptop.client.post("/settings", data=right, headers=page).status_code == 303
        laptop.sync.tick()
        assert [r["device"] for r in laptop.history()] == ["desk"]
        data = tmp_path / "laptop" / "data"
        kept = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
        assert b"correct horse battery staple" not in kept
        # A machine with its keys: another passphrase is refused, not said to be saved.
        other = {"sync_passphrase": "not the passphrase"}
        refused = laptop.client.post("/settings", json=other, headers=HOST)
        assert refused.status_code == 400 and "does not open" in refused.get_json()["error"]
        short = laptop.client.post("/settings", json={"sync_passphrase": "short"}, headers=HOST)
        assert short.status_code == 400 and "at least 8 characters" in short.get_json()["error"]
    finally:
        desk.stop()
        laptop.stop()


def test_a_standing_rule_is_one_rule_on_every_machine(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    desk = Machine(tmp_path / "desk", folder, "desk")
    laptop = Machine(tmp_path / "laptop", folder, "laptop")
    try:
        rule = {"app": "slack", "verdict": "off_task"}
        made = desk.client.post("/rules", json=rule, headers=HOST).get_json()
        desk.sync.tick()
        laptop.sync.tick()
        there = laptop.client.get("/rules", headers=HOST).get_json()
        assert [(r["id"], r["app"], r["verdict"]) for r in there] == [
            (made["id"], "slack", "off_task")
        ]
        # The laptop removes it: the desk's goes too (one id on every machine).
        gone = laptop.client.post(f"/rules/{made['id']}/delete", headers=HOST)
        assert gone.status_code == 200
        laptop.sync.tick()
        desk.sync.tick()
        assert desk.client.get("/rules", headers=HOST).get_json() == []
    finally:
        desk.stop()
        laptop.stop()
