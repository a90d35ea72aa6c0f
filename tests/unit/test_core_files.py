"""core/files.py: the one way a file of AntiDrift's own is replaced — whole or not at all."""

import os
import stat

import pytest

from antidrift.core.files import sync_folder, write_whole


def test_a_file_is_replaced_whole_with_its_mode_and_no_temporary_left(tmp_path):
    target = tmp_path / "deep" / "settings.json"
    first = write_whole(target, b"one")  # the folder is made
    assert target.read_bytes() == b"one" and stat.S_IMODE(first.st_mode) == 0o600
    second = write_whole(target, b"two, longer", mode=0o644, durable=False)
    assert target.read_bytes() == b"two, longer"
    assert stat.S_IMODE(second.st_mode) == 0o644 == stat.S_IMODE(os.stat(target).st_mode)
    assert os.listdir(target.parent) == ["settings.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "now"
    write_whole(target, b"old")

    def no_rename(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError):
        write_whole(target, b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["now"]


def test_the_temporary_name_is_one_sync_readers_skip(tmp_path, monkeypatch):
    from antidrift.sync.folder import is_leftover

    names = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (names.append(src), real(src, dst)))
    write_whole(tmp_path / "manifest", b"x")
    assert names and is_leftover(os.path.basename(names[0]))


def test_syncing_a_folder_that_cannot_be_opened_is_quietly_nothing(tmp_path):
    sync_folder(tmp_path)  # a real folder: fsynced
    sync_folder(tmp_path / "missing")  # none: nothing raised
