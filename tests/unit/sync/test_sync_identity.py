"""A device's identity: a random id made once and kept, never the host name; a copied data
directory (two machines, one id) is caught and named, and `new_id` ends it; the sync folder and
the data directory are kept apart."""

from __future__ import annotations

import shutil
import socket

import pytest

from antidrift.sync import (
    Keyring,
    SharedDeviceId,
    SyncFolderPlacement,
    check_apart,
    device_id,
    new_id,
    unlock,
)
from antidrift.sync.errors import Malformed
from antidrift.sync.folder import DEVICE_ID


def test_a_device_id_is_random_made_once_and_kept(tmp_path):
    first = device_id(tmp_path / "one")
    assert DEVICE_ID.fullmatch(first) and len(first) == 26
    assert device_id(tmp_path / "one") == first
    assert device_id(tmp_path / "two") != first
    assert first != socket.gethostname().lower()  # and two ids on one host differ, above


def test_a_damaged_id_file_says_what_to_do(tmp_path):
    (tmp_path / "sync").mkdir()
    (tmp_path / "sync" / "device-id").write_text("laptop\n")
    with pytest.raises(Malformed) as refused:
        device_id(tmp_path)
    assert "antidrift sync new-id" in str(refused.value) and "laptop" not in str(refused.value)


def copy_of(pair, tmp_path, make_machine):
    """A second machine made from a copy of A's data directory: the same id and key."""
    shutil.copytree(pair.a.data_dir, tmp_path / "copy-data")
    return make_machine(tmp_path / "copy-data")


def test_a_copied_data_directory_is_caught_by_the_machine_that_writes_next(
    pair, tmp_path, make_machine
):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    copy = copy_of(pair, tmp_path, make_machine)
    assert copy.id == pair.a.id
    copy.writer(pair.folder).append([copy.record("commitment:2", {"n": 2})])  # unaware yet
    with pytest.raises(SharedDeviceId) as refused:
        pair.writer.append([pair.a.record("commitment:3", {"n": 3})])
    message = refused.value.message
    assert "antidrift sync new-id" in message and "copied data directory" in message
    assert message.endswith(".") and refused.value.status == 409
    with pytest.raises(SharedDeviceId):
        pair.a.reader(pair.folder).read()


def test_the_copy_is_caught_too_when_the_first_machine_wrote_since(pair, tmp_path, make_machine):
    copy = copy_of(pair, tmp_path, make_machine)
    pair.writer.publish({"state": "active"}, pair.a.clock.now())
    with pytest.raises(SharedDeviceId):
        copy.writer(pair.folder).append([copy.record("commitment:2", {"n": 2})])
    with pytest.raises(SharedDeviceId):
        copy.reader(pair.folder).read()
    pair.writer.check()  # the first machine's folder is all its own


def test_a_file_of_ours_replaced_in_place_is_caught(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (pair.a_dir / "now").write_bytes((pair.a_dir / "manifest").read_bytes())
    with pytest.raises(SharedDeviceId) as refused:
        pair.writer.check()
    assert refused.value.file == f"devices/{pair.a.id}/now"


def test_leftovers_and_other_names_in_our_own_folder_are_no_intruders(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (pair.a_dir / "now.sync-conflict-20250101-120000-ABCDEFG").write_text("x")
    (pair.a_dir / ".syncthing.manifest.tmp").write_text("x")
    (pair.a_dir / "segments" / "notes.txt").write_text("x")
    pair.writer.check()
    pair.a.reader(pair.folder).read()


def test_our_own_writes_across_a_restart_are_ours(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    restarted = pair.a.writer(pair.folder, "laptop")
    restarted.append([pair.a.record("commitment:2", {"n": 2})])
    restarted.compact(keep=0)
    assert [e["records"] for e in restarted.segments] == [2]
    pair.a.reader(pair.folder).read()


def test_a_new_id_keeps_the_key_and_reads_the_old_folder_as_another_device(
    pair, tmp_path, make_machine, passphrase
):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    copy = copy_of(pair, tmp_path, make_machine)
    fresh = new_id(copy.data_dir)
    assert fresh != pair.a.id and device_id(copy.data_dir) == fresh
    keys = Keyring(copy.data_dir)
    assert keys.get(fresh) == keys.get(pair.a.id)  # no passphrase needed
    renamed = make_machine(copy.data_dir)
    renamed.writer(pair.folder, "desktop").append([renamed.record("commitment:9", {"n": 9})])
    found = renamed.reader(pair.folder).read()
    assert [r.id for s in found.arrived for r in s.records] == ["commitment:1"]
    pair.writer.append([pair.a.record("commitment:2", {"n": 2})])  # A writes on, untroubled
    a_reads = pair.a.reader(pair.folder)
    assert [s.file for s in a_reads.read().skipped] == [f"devices/{fresh}/keyparams"]
    assert unlock(pair.a.keys, pair.folder, pair.a.id, passphrase, fast=True) == [fresh]
    found = a_reads.read()
    assert [r.id for s in found.arrived for r in s.records] == ["commitment:9"]
    assert [p.id for p in found.peers] == [fresh] and found.skipped == ()


@pytest.mark.parametrize(
    ("sync", "data", "says"),
    [
        ("data/Sync", "data", "inside the data directory"),
        ("Sync", "Sync/antidrift-data", "data directory cannot be inside"),
        ("same", "same", "cannot be the data directory"),
        ("link-to-data/Sync", "data", "inside the data directory"),
    ],
)
def test_the_sync_folder_and_the_data_directory_are_kept_apart(tmp_path, sync, data, says):
    (tmp_path / "data").mkdir()
    (tmp_path / "link-to-data").symlink_to(tmp_path / "data")
    with pytest.raises(SyncFolderPlacement) as refused:
        check_apart(tmp_path / sync, tmp_path / data)
    assert says in refused.value.message and refused.value.message.endswith(".")


def test_apart_folders_pass(tmp_path):
    check_apart(tmp_path / "Sync", tmp_path / "data")
    check_apart(tmp_path / "Sync", tmp_path / "Sync-data")  # a common prefix is not inside
