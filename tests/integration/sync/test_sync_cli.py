"""`antidrift sync join | new-id | status` (issue 42): the passphrase asked for, twice the
first time; the keys kept, never the passphrase; a wrong one refused in a sentence."""

from __future__ import annotations

import getpass

import pytest

from antidrift.server import commands
from antidrift.sync import Keyring, device_id
from tests.support.sync import Machine

PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def env(tmp_path, monkeypatch):
    folder = tmp_path / "Sync"
    folder.mkdir()
    for name, value in {
        "ANTIDRIFT_DATA_DIR": str(tmp_path / "laptop"),
        "ANTIDRIFT_SYNC_FOLDER": str(folder),
        "ANTIDRIFT_SYNC_KDF": "fast",
    }.items():
        monkeypatch.setenv(name, value)
    return tmp_path


def typed(monkeypatch, *answers: str) -> None:
    said = iter(answers)
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": next(said))


def test_the_first_join_asks_twice_and_keeps_the_key_not_the_passphrase(env, monkeypatch, capsys):
    typed(monkeypatch, "short")
    assert commands.main(["sync", "join"]) == 2
    typed(monkeypatch, PASSPHRASE, PASSPHRASE + "!")
    assert commands.main(["sync", "join"]) == 2
    assert "differ; nothing was kept" in capsys.readouterr().err
    assert Keyring(env / "laptop").devices() == []
    typed(monkeypatch, PASSPHRASE, PASSPHRASE)
    assert commands.main(["sync", "join"]) == 0
    me = device_id(env / "laptop")
    assert Keyring(env / "laptop").devices() == [me]
    kept = b"".join(p.read_bytes() for p in (env / "laptop").rglob("*") if p.is_file())
    assert PASSPHRASE.encode() not in kept
    assert commands.main(["sync", "status"]) == 0
    assert f"This machine: {me}" in capsys.readouterr().out


def test_joining_a_folder_another_machine_uses_takes_its_key_or_refuses_a_wrong_one(
    env, monkeypatch, capsys
):
    desk = Machine(env / "desk", env / "Sync", "desk", PASSPHRASE)
    try:
        desk.commit("Write the intro")
        desk.sync.tick()
        typed(monkeypatch, "not the passphrase")
        assert commands.main(["sync", "join"]) == 2
        err = capsys.readouterr().err
        assert "does not open the files of one of your other machines" in err
        assert Keyring(env / "laptop").devices() == []  # all or nothing
        typed(monkeypatch, PASSPHRASE)  # asked once: the folder's key is there to check it
        assert commands.main(["sync", "join"]) == 0
        assert desk.sync.me in Keyring(env / "laptop").devices()
        capsys.readouterr()
        commands.main(["doctor"])  # changes nothing; says the folder, the ids, the keys
        section = capsys.readouterr().out.split("sync folder ", 1)[1]
        assert f"another machine: {desk.sync.me}, key kept" in section
        assert "this machine: " in section and "key kept" in section.splitlines()[1]
    finally:
        desk.stop()


def test_new_id_gives_this_machine_another(env, capsys):
    before = device_id(env / "laptop")
    assert commands.main(["sync", "new-id"]) == 0
    after = device_id(env / "laptop")
    assert after != before and after in capsys.readouterr().out
