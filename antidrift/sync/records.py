"""What the sealed files hold, and the checks a file from another device passes before one
of its records is taken.

A record is one JSON object, `{"device", "id", "hlc", "kind", "body"}`: the device that wrote
it, the record's id (text, unique across kinds: `commitment:…`, `rule:…`), its hybrid clock
stamp, its kind, and its body (a JSON object), or `null` for a removal (a tombstone). It is
keyed by (device, id), so importing it twice changes nothing; between two versions of one
key the later stamp wins.

A segment is a header line (`{"format", "device", "records"}`) and one record a line (JSONL),
compressed with zlib. The manifest lists a device's segments, each with its SHA-256;
`now` says what the device is doing. Both are JSON objects carrying `format` and `device`."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from antidrift.core.errors import ValidationError
from antidrift.core.outside import Unreadable, parse_json, parse_json_lines
from antidrift.sync.errors import Malformed
from antidrift.sync.folder import SEGMENT_NAME, UNPACKED_MAX
from antidrift.sync.hlc import Stamp

FORMAT = 1
KIND = re.compile(r"[a-z][a-z0-9_.-]{0,39}")
ID_MAX = 200
RECORDS_MAX = 500_000  # in one segment
SEGMENTS_MAX = 10_000  # in one manifest
LINE_CONTAINERS = 20_000  # objects and arrays in one record
SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SyncRecord:
    """One record as it travels; `body` None is a removal (a tombstone)."""

    device: str
    id: str
    hlc: Stamp
    kind: str
    body: dict | None

    @property
    def key(self) -> tuple[str, str]:
        """What an import is keyed by: (the writing device, the record's id)."""
        return (self.device, self.id)

    @property
    def removed(self) -> bool:
        return self.body is None

    def to_json(self) -> dict[str, object]:
        return {
            "device": self.device,
            "id": self.id,
            "hlc": str(self.hlc),
            "kind": self.kind,
            "body": self.body,
        }

    @classmethod
    def from_json(cls, value: object, device: str) -> SyncRecord:
        """The record in `value`, written by `device`; ValueError (saying what, quoting
        nothing) when it is not one, or names another writer."""
        if not isinstance(value, dict):
            raise ValueError("a line is not a record")
        ident, kind, body = value.get("id"), value.get("kind"), value.get("body")
        if value.get("device") != device:
            raise ValueError("a record names another device as its writer")
        if not isinstance(ident, str) or not 0 < len(ident) <= ID_MAX:
            raise ValueError("a record's id is missing or too long")
        if not isinstance(kind, str) or not KIND.fullmatch(kind):
            raise ValueError("a record's kind is missing or malformed")
        if body is not None and not isinstance(body, dict):
            raise ValueError("a record's body is not an object")
        try:
            hlc = Stamp.parse(value.get("hlc"))
        except ValidationError:
            raise ValueError("a record's clock stamp is malformed") from None
        return cls(device, ident, hlc, kind, body)


def newest(records: Iterable[SyncRecord]) -> dict[tuple[str, str], SyncRecord]:
    """The latest version of each key (by clock stamp): what importing them all leaves."""
    kept: dict[tuple[str, str], SyncRecord] = {}
    for record in records:
        old = kept.get(record.key)
        if old is None or record.hlc > old.hlc:
            kept[record.key] = record
    return kept


def _line(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def pack_segment(device: str, records: list[SyncRecord]) -> bytes:
    """The plaintext of a segment: header and records as JSONL, compressed."""
    for record in records:
        if record.device != device:
            raise ValidationError("A device writes only its own records.", "device")
    header = {"format": FORMAT, "device": device, "records": len(records)}
    lines = [_line(header), *(_line(r.to_json()) for r in records)]
    return zlib.compress(b"\n".join(lines) + b"\n", 6)


def unpack_segment(packed: bytes, device: str, what: str) -> list[SyncRecord]:
    """The records of a segment's plaintext, each checked; Malformed (quoting nothing) when
    it is not a segment of `device`, holds a bad record, or unpacks past its bound."""
    unpacker = zlib.decompressobj()
    try:
        text = unpacker.decompress(packed, UNPACKED_MAX + 1)
    except zlib.error:
        raise Malformed(what, "is not a compressed segment") from None
    if len(text) > UNPACKED_MAX or unpacker.unconsumed_tail:
        raise Malformed(what, f"unpacks to more than {UNPACKED_MAX >> 20} MB")
    if not unpacker.eof:
        raise Malformed(what, "is cut short")
    # As text at once (a line's bytes decode as they would alone: "\n" ends any sequence).
    lines = text.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = _document(lines[0] if lines else "", what, "its header")
    if header.get("format") != FORMAT:
        raise Malformed(what, "is in a format this version does not know")
    count = len(lines) - 1
    if header.get("device") != device or header.get("records") != count:
        raise Malformed(what, "does not match its header")
    if count > RECORDS_MAX:
        raise Malformed(what, f"holds more than {RECORDS_MAX:,} records")
    records = []
    # Each line bounded and parsed as parse_json takes one alone (core/outside.py).
    values = parse_json_lines(lines[1:], what=what, max_containers=LINE_CONTAINERS)
    for number in range(2, count + 2):
        try:
            value = next(values)
        except Unreadable as exc:
            raise Malformed(what, f"has a line that is not a record (line {number})") from exc
        try:
            records.append(SyncRecord.from_json(value, device))
        except ValueError as exc:
            raise Malformed(what, f"has a bad record: {exc} (line {number})") from None
    return records


def pack_document(value: dict[str, object]) -> bytes:
    """A manifest's or a `now`'s plaintext."""
    return _line({"format": FORMAT, **value})


def _document(data: bytes, what: str, part: str = "it") -> dict:
    try:
        value = parse_json(data, what=what, max_containers=LINE_CONTAINERS)
    except Unreadable:
        raise Malformed(what, f"holds no JSON in {part}") from None
    if not isinstance(value, dict):
        raise Malformed(what, f"holds no JSON object in {part}")
    return value


def unpack_manifest(data: bytes, device: str, what: str) -> dict:
    """A manifest, checked: {"device", "name", "seq", "segments": [{"name", "sha256",
    "records"}]}; Malformed otherwise."""
    value = _document(data, what)
    segments = value.get("segments")
    if value.get("format") != FORMAT:
        raise Malformed(what, "is in a format this version does not know")
    if value.get("device") != device or not isinstance(value.get("seq"), int):
        raise Malformed(what, "does not belong to its device folder")
    if not isinstance(segments, list) or len(segments) > SEGMENTS_MAX:
        raise Malformed(what, "lists its segments wrongly")
    for entry in segments:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and SEGMENT_NAME.fullmatch(entry["name"])
            and isinstance(entry.get("sha256"), str)
            and SHA256.fullmatch(entry["sha256"])
            and isinstance(entry.get("records"), int)
        ):
            raise Malformed(what, "lists a segment wrongly")
    names = [entry["name"] for entry in segments]
    if len(set(names)) != len(names):
        raise Malformed(what, "lists a segment twice")
    if not isinstance(value.get("name", ""), str):
        raise Malformed(what, "names its device wrongly")
    return value


def unpack_now(data: bytes, device: str, what: str) -> dict:
    """A `now`, checked: {"device", "name", "hlc", "body": {...}}; Malformed otherwise."""
    value = _document(data, what)
    if value.get("format") != FORMAT:
        raise Malformed(what, "is in a format this version does not know")
    if value.get("device") != device:
        raise Malformed(what, "does not belong to its device folder")
    if not isinstance(value.get("body"), dict) or not isinstance(value.get("name", ""), str):
        raise Malformed(what, "holds no state")
    try:
        value["hlc"] = Stamp.parse(value.get("hlc"))
    except ValidationError:
        raise Malformed(what, "has a malformed clock stamp") from None
    return value
