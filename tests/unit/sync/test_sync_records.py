"""Records as they travel: a segment's records come back exactly as written (a property),
every record is checked before it is taken, each line is taken as parse_json takes it alone
(a property), and an unpacked segment is bounded."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from antidrift.core.outside import Unreadable, parse_json, parse_json_lines
from antidrift.sync import records as record_format
from antidrift.sync.errors import Malformed
from antidrift.sync.hlc import Stamp
from antidrift.sync.records import (
    SyncRecord,
    newest,
    pack_segment,
    unpack_manifest,
    unpack_segment,
)

A, B = "a" * 26, "b" * 26
WHAT = "devices/a/segments/00000001-aaaaaaaa.seg"

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
RECORDS = st.builds(
    SyncRecord,
    st.just(A),
    st.text(min_size=1, max_size=40),
    st.builds(Stamp, st.integers(0, 2**45), st.integers(0, 999_999), st.just(A)),
    st.from_regex(r"[a-z][a-z0-9_.-]{0,10}", fullmatch=True),
    st.none() | st.dictionaries(st.text(max_size=10), JSON, max_size=5),
)


@settings(max_examples=50)
@given(st.lists(RECORDS, max_size=20))
def test_a_segment_gives_back_exactly_the_records_written(records):
    assert unpack_segment(pack_segment(A, records), A, WHAT) == records


@settings(max_examples=50)
@given(st.lists(RECORDS, max_size=30))
def test_newest_keeps_one_record_per_key_the_latest(records):
    kept = newest(records)
    assert set(kept) == {r.key for r in records}
    for record in records:
        assert kept[record.key].hlc >= record.hlc


def lines(*values) -> bytes:
    return zlib.compress(b"\n".join(json.dumps(v).encode() for v in values) + b"\n")


GOOD = {"device": A, "id": "c:1", "hlc": str(Stamp(1, 0, A)), "kind": "commitment", "body": {}}


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ({**GOOD, "device": B}, "names another device"),
        ({**GOOD, "id": ""}, "id is missing"),
        ({**GOOD, "id": "x" * 201}, "too long"),
        ({**GOOD, "kind": "Bad Kind"}, "kind"),
        ({**GOOD, "body": [1]}, "body is not an object"),
        ({**GOOD, "hlc": "yesterday"}, "clock stamp"),
        ([1, 2], "not a record"),
    ],
)
def test_a_bad_record_refuses_its_segment_without_quoting_it(bad, says):
    packed = lines({"format": 1, "device": A, "records": 1}, bad)
    with pytest.raises(Malformed) as refused:
        unpack_segment(packed, A, WHAT)
    assert says in refused.value.why and "line 2" in refused.value.why
    assert "yesterday" not in refused.value.message


SPACE = st.text(" \t\r", max_size=3)
LINE = st.text(' \t\r{}[]",:.-+eE019truefalsnNIax\\\ufeff\u0663', max_size=40) | st.builds(
    lambda before, value, after: before + value + after,
    SPACE,
    JSON.map(json.dumps),
    SPACE | st.text(max_size=3),
)


@settings(max_examples=300)
@given(LINE, st.integers(0, 8))
@example("[[[", 2)  # one past its bound, no longer than it: counted too
def test_a_line_is_taken_as_parse_json_takes_it_alone(line, bound):
    def read(parse) -> str:
        try:
            return repr(parse())
        except Unreadable as exc:
            return exc.message

    alone = read(lambda: parse_json(line, max_containers=bound))
    assert read(lambda: next(parse_json_lines([line], max_containers=bound))) == alone


def test_a_record_spread_over_two_lines_is_refused_at_its_first():
    header = json.dumps({"format": 1, "device": A, "records": 2}).encode()
    first, rest = json.dumps(GOOD).encode().split(b'"body": ')
    packed = zlib.compress(b"\n".join([header, first + b'"body": {', b"}}", b""]))
    with pytest.raises(Malformed) as refused:
        unpack_segment(packed, A, WHAT)
    assert "not a record (line 2)" in refused.value.why


def test_a_line_of_more_objects_and_lists_than_its_bound_is_refused(monkeypatch):
    monkeypatch.setattr(record_format, "LINE_CONTAINERS", 20)
    header = {"format": 1, "device": A, "records": 1}
    taken = {**GOOD, "body": {"apps": [[]] * 17}}  # 20, with the record, its body and apps
    assert len(unpack_segment(lines(header, taken), A, WHAT)) == 1
    with pytest.raises(Malformed) as refused:
        unpack_segment(lines(header, {**GOOD, "body": {"apps": [[]] * 18}}), A, WHAT)
    assert "not a record (line 2)" in refused.value.why


@pytest.mark.parametrize(
    ("packed", "says"),
    [
        (b"not zlib", "not a compressed segment"),
        (zlib.compress(b'{"format": 1, "device": "x"')[:-4], "cut short"),
        (lines({"format": 2, "device": A, "records": 0}), "format"),
        (lines({"format": 1, "device": B, "records": 0}), "header"),
        (lines({"format": 1, "device": A, "records": 5}, GOOD), "header"),
        (lines({"format": 1, "device": A, "records": 1}, "x" * 10), "not a record"),
    ],
)
def test_a_segment_that_is_not_one_is_refused(packed, says):
    with pytest.raises(Malformed) as refused:
        unpack_segment(packed, A, WHAT)
    assert says in refused.value.why


def test_a_decompression_bomb_is_refused_before_it_is_unpacked_whole(monkeypatch):
    monkeypatch.setattr(record_format, "UNPACKED_MAX", 4 << 20)  # the bound, made small to test
    bomb = zlib.compress(b"\n" * (64 << 20), 9)  # 64 MB of newlines in ~64 KB
    assert len(bomb) < 1 << 20
    with pytest.raises(Malformed) as refused:
        unpack_segment(bomb, A, WHAT)
    assert "unpacks to more than 4 MB" in refused.value.why


@pytest.mark.parametrize(
    "manifest",
    [
        {"format": 1, "device": B, "seq": 1, "segments": []},
        {"format": 1, "device": A, "seq": "1", "segments": []},
        {"format": 1, "device": A, "seq": 1, "segments": [{"name": "../../etc/passwd"}]},
        {
            "format": 1,
            "device": A,
            "seq": 1,
            "segments": [{"name": "00000001-aaaaaaaa.seg", "sha256": "0" * 64, "records": 1}] * 2,
        },
    ],
    ids=["another device's", "a seq of text", "a path for a name", "a segment twice"],
)
def test_a_manifest_that_is_not_its_devices_is_refused(manifest):
    with pytest.raises(Malformed):
        unpack_manifest(json.dumps(manifest).encode(), A, "devices/a/manifest")
