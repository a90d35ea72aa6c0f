"""One device writes its folder, another reads it: every file verified before a record is
taken, a file that fails named in `skipped` and tried again, sync tools' leftovers ignored
and left where they are."""

from __future__ import annotations

import os

import pytest

from antidrift.core.errors import ValidationError
from antidrift.sync import Keyring, WrongPassphrase, newest, unlock
from antidrift.sync.folder import is_leftover
from tests.support import hostile

LEFTOVERS = [
    ".syncthing.now.tmp",
    "now.sync-conflict-20250101-120000-ABCDEFG",
    "manifest (Mac's conflicted copy 2025-01-01)",
    "~$now",
    ".~lock.now#",
    ".antidrift-1a2b3c.tmp",
]


def records_of(found):
    return [record for segment in found.arrived for record in segment.records]


def test_what_one_device_writes_another_reads_whole(pair):
    a = pair.a
    written = [a.record("commitment:1", {"outcome": "done"}), a.record("rule:9", {"site": "x"})]
    pair.writer.append(written)
    pair.writer.publish({"state": "active", "next_action": "Write"}, a.clock.now())
    found = pair.reader.read()
    assert records_of(found) == written
    assert found.skipped == ()
    assert [e.body for e in found.elsewhere] == [{"state": "active", "next_action": "Write"}]
    (peer,) = found.peers
    assert (peer.id, peer.name, peer.segments, peer.records) == (a.id, "laptop", 1, 2)


def test_nothing_of_the_content_is_in_the_folder_in_clear(pair):
    pair.writer.append([pair.a.record("commitment:1", {"note": "a very private note"})])
    pair.writer.publish({"next_action": "see the doctor"}, pair.a.clock.now())
    for path in pair.folder.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert b"private" not in text and b"doctor" not in text and b"commitment" not in text


def test_reading_again_changes_nothing_and_imported_segments_are_passed_over(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    pair.writer.append([pair.a.record("commitment:1", {"n": 2})])
    first, again = pair.reader.read(), pair.reader.read()
    assert records_of(first) == records_of(again)
    once = newest(records_of(first))
    assert newest(records_of(first) + records_of(again)) == once  # an import keyed twice
    assert once[(pair.a.id, "commitment:1")].body == {"n": 2}
    imported = {segment.sha256 for segment in first.arrived}
    assert pair.reader.read(imported).arrived == ()


def test_the_cheap_look_says_whether_anything_changed(pair):
    assert pair.reader.changed()  # before the first read
    pair.reader.read()
    assert not pair.reader.changed()
    pair.writer.append([pair.a.record("commitment:1", {})])
    assert pair.reader.changed()
    pair.reader.read()
    assert not pair.reader.changed()
    pair.writer.publish({"state": "active"}, pair.a.clock.now())
    assert pair.reader.changed()


def test_a_changed_byte_in_a_segment_is_refused_and_nothing_of_it_read(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (segment,) = (pair.a_dir / "segments").iterdir()
    data = bytearray(segment.read_bytes())
    data[-5] ^= 0x40
    segment.write_bytes(bytes(data))
    found = pair.reader.read()
    assert found.arrived == ()
    assert [s.to_json() for s in found.skipped] == [
        {
            "file": f"devices/{pair.a.id}/segments/{segment.name}",
            "why": "is not complete yet, or was changed (its checksum differs)",
        }
    ]


def test_a_manifest_swapped_for_another_file_does_not_open(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (pair.a_dir / "manifest").write_bytes((pair.a_dir / "now").read_bytes())
    found = pair.reader.read()
    assert found.arrived == ()
    assert [(s.file.rsplit("/", 1)[1], s.why) for s in found.skipped] == [
        ("manifest", "does not open with its device's key under its name")
    ]


def test_a_segment_swapped_for_another_does_not_open_even_with_the_checksum(pair):
    """One sealed segment renamed to another's name and listed with its checksum (as one
    holding the key could list it) still fails: the name is bound into the seal."""
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    pair.writer.append([pair.a.record("commitment:2", {"n": 2})])
    first, second = pair.writer.segments
    segments = pair.a_dir / "segments"
    (segments / first["name"]).write_bytes((segments / second["name"]).read_bytes())
    manifest = [{**second, "name": first["name"]}, second]
    pair.writer._write_manifest(manifest)  # what one with the key could write
    found = pair.reader.read()
    assert [r.id for r in records_of(found)] == ["commitment:2"]
    assert [s.why for s in found.skipped] == ["does not open with its device's key under its name"]


def test_a_wrong_passphrase_is_a_sentence_and_nothing_is_read(tmp_path, pair, make_machine):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    c = make_machine(tmp_path / "c-data")
    with pytest.raises(WrongPassphrase) as refused:
        unlock(c.keys, pair.folder, c.id, "not the passphrase", fast=True)
    assert refused.value.message.endswith(".")
    assert Keyring(c.data_dir).devices() == []  # nothing kept, not even C's own key
    found = c.reader(pair.folder).read()
    assert found.arrived == () and found.elsewhere == ()
    assert [s.why for s in found.skipped] == [
        "is from a device this machine has no key for yet: enter the sync passphrase to read it"
    ]


def test_leftovers_are_ignored_and_left_in_place(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    places = [pair.a_dir, pair.a_dir / "segments", pair.a_dir.parent]
    made = {}
    for place in places:
        for name in LEFTOVERS:
            (place / name).write_bytes(hostile.SECRET.encode())
            made[place / name] = hostile.SECRET.encode()
    (pair.a_dir.parent / f"{pair.a.id}.sync-conflict-20250101-120000-ABCDEFG").mkdir()
    for reader in (pair.reader, pair.b.reader(pair.folder)):
        found = reader.read()
        assert [r.id for r in records_of(found)] == ["commitment:1"] and found.skipped == ()
    pair.writer.append([pair.a.record("commitment:2", {})])  # A's own leftovers let be too
    pair.writer.compact(keep=0)
    assert {path: path.read_bytes() for path in made} == made
    assert all(is_leftover(name) for name in LEFTOVERS)
    assert not any(is_leftover(name) for name in ("now", "manifest", "00000001-abcdefgh.seg"))


def test_a_partial_segment_is_skipped_then_read_once_whole(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (segment,) = (pair.a_dir / "segments").iterdir()
    whole = segment.read_bytes()
    segment.write_bytes(whole[: len(whole) // 2])  # a sync tool that writes in place
    found = pair.reader.read()
    assert found.arrived == () and len(found.skipped) == 1
    assert not pair.reader.changed()  # the same partial file is not read again each tick
    with open(segment, "ab") as rest:
        rest.write(whole[len(whole) // 2 :])
    assert pair.reader.changed()
    found = pair.reader.read()
    assert [r.id for r in records_of(found)] == ["commitment:1"] and found.skipped == ()


def test_a_segment_listed_before_it_arrived_is_read_when_it_does(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    (segment,) = (pair.a_dir / "segments").iterdir()
    held = segment.read_bytes()
    segment.unlink()
    found = pair.reader.read()
    assert [s.why for s in found.skipped] == ["has not arrived yet"]
    segment.write_bytes(held)
    assert pair.reader.changed()
    assert [r.id for r in records_of(pair.reader.read())] == ["commitment:1"]


def test_an_older_manifest_brought_back_is_not_taken(pair):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    old = (pair.a_dir / "manifest").read_bytes()
    pair.writer.append([pair.a.record("commitment:2", {"n": 2})])
    pair.reader.read()
    (pair.a_dir / "manifest").write_bytes(old)
    found = pair.reader.read()
    assert found.arrived == ()
    assert [s.why for s in found.skipped] == [
        "is older than one read before (a sync tool brought back an old copy)"
    ]


def test_compaction_keeps_every_record_newest_per_key(pair):
    a = pair.a
    batches = [
        [a.record("commitment:1", {"v": 1}), a.record("commitment:2", {"v": 1})],
        [a.record("commitment:1", {"v": 2}), a.record("rule:1", {"site": "x"})],
        [a.record("rule:1", None), a.record("commitment:3", {"v": 1})],  # a tombstone
        [a.record("commitment:2", {"v": 2})],
    ]
    for batch in batches:
        pair.writer.append(batch)
    expected = newest(r for batch in batches for r in batch)
    before = {p.name for p in (pair.a_dir / "segments").iterdir()}
    assert pair.writer.compact(keep=1) == 3
    after = {p.name for p in (pair.a_dir / "segments").iterdir()}
    assert len(after) == 2 and len(before - after) == 3
    found = pair.reader.read()
    assert found.skipped == ()
    assert newest(records_of(found)) == expected
    assert expected[(a.id, "rule:1")].removed
    assert pair.writer.compact(keep=1) == 0  # one older segment: nothing to merge


def test_a_reader_that_imported_before_compaction_ends_with_the_same_records(pair):
    a = pair.a
    pair.writer.append([a.record("commitment:1", {"v": 1})])
    pair.writer.append([a.record("commitment:1", {"v": 2})])
    first = pair.reader.read()
    imported = {s.sha256 for s in first.arrived}
    pair.writer.compact(keep=0)
    later = pair.reader.read(imported)
    assert newest(records_of(first) + records_of(later)) == newest(records_of(first))


def test_a_record_that_names_another_writer_is_refused(pair):
    stranger = pair.b.record("commitment:1", {"n": 1})
    with pytest.raises(ValidationError) as refused:
        pair.writer.append([stranger])
    assert refused.value.message == "A device writes only its own records."
    assert not (pair.a_dir / "segments").exists()


@pytest.mark.parametrize("make", list(hostile.KIT.values()), ids=list(hostile.KIT))
@pytest.mark.parametrize("name", ["keyparams", "manifest", "now", "segment"])
def test_a_hostile_file_is_skipped_without_quoting_it(pair, make, name):
    pair.writer.append([pair.a.record("commitment:1", {"n": 1})])
    if name == "segment":
        (path,) = (pair.a_dir / "segments").iterdir()
    else:
        path = pair.a_dir / name
    path.unlink()
    make(path)
    found = pair.reader.read()
    if name in ("keyparams", "manifest", "segment"):
        assert found.arrived == ()
    assert found.skipped, "a hostile file was taken"
    for skipped in found.skipped:
        assert hostile.SECRET not in skipped.why and "\x1b" not in skipped.why
        assert skipped.file.startswith(f"devices/{pair.a.id}/")
    assert pair.writer.folder.exists() and os.path.lexists(path)  # never removed
