"""This device's side of the sync folder: it writes only under `devices/<its id>/`, and
before each write checks that nothing there was written by another machine (SharedDeviceId).

A batch of records becomes a new immutable segment (sealed, written whole), then the
manifest that lists it; `now` is replaced whole at each publish. Compaction merges the older
segments into one (the newest version of each key, tombstones kept), lists it in the
manifest, and only then removes what it replaced: a reader sees the old set or the new one,
and every record stays in one of them."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from antidrift.core.files import write_whole
from antidrift.sync.crypto import seal
from antidrift.sync.folder import (
    KEYPARAMS,
    MANIFEST,
    NOW,
    SEGMENTS,
    UNPACKED_MAX,
    device_dir,
    open_sealed,
    relative,
    segment_number,
    sha256,
)
from antidrift.sync.hlc import Stamp
from antidrift.sync.keyring import KeyEntry
from antidrift.sync.records import (
    SyncRecord,
    newest,
    pack_document,
    pack_segment,
    unpack_manifest,
    unpack_segment,
)
from antidrift.sync.written import OwnFolder, WrittenLog

COMPACT_CHUNK = UNPACKED_MAX // 8  # records' JSON per compacted segment, at most (~16 MB)


class DeviceWriter:
    """Writes this device's folder: `append` (a segment), `publish` (`now`), `compact`."""

    def __init__(
        self, sync_folder: Path, data_dir: str | Path, device: str, key: KeyEntry, name: str = ""
    ) -> None:
        self.sync_folder = Path(sync_folder)
        self.folder = device_dir(self.sync_folder, device)
        self.device, self.name, self._key = device, name, key
        self._log = WrittenLog(data_dir, device)
        self._own = OwnFolder(self.sync_folder, data_dir, device)
        self._lock = threading.Lock()
        self._manifest: dict | None = None  # loaded at the first write

    @property
    def segments(self) -> list[dict]:
        """The manifest's entries: {"name", "sha256", "records"}, oldest first."""
        with self._lock:
            if self._manifest is None:
                self._manifest = self._load_manifest()
            return [dict(e) for e in self._manifest["segments"]]

    def append(self, records: Sequence[SyncRecord]) -> str | None:
        """Write `records` (this device's) as a new segment and list it; its name, or None
        when there is nothing to write."""
        if not records:
            return None
        with self._lock:
            self._ready()
            entries = self._write_segments(list(records))
            self._write_manifest([*self._manifest["segments"], *entries])
            return entries[0]["name"]

    def publish(self, body: dict, hlc: Stamp) -> None:
        """Replace `now` with `body` (what this device is doing), stamped `hlc`."""
        with self._lock:
            self._ready()
            document = {
                "device": self.device,
                "name": self.name,
                "hlc": str(hlc),
                "body": body,
            }
            self._write(NOW, pack_document(document))

    def compact(self, keep: int = 1) -> int:
        """Merge all segments but the `keep` newest into one (several past ~16 MB): the
        newest version of each key, tombstones kept. How many segments it replaced."""
        with self._lock:
            self._ready()
            listed = self._manifest["segments"]
            older, kept = listed[: max(len(listed) - keep, 0)], listed[len(listed) - keep :]
            if len(older) < 2:
                return 0
            records: list[SyncRecord] = []
            for entry in older:
                records += self._read_segment(entry)
            merged = sorted(newest(records).values(), key=lambda r: r.hlc)
            entries = self._write_segments(merged) if merged else []
            self._write_manifest([*entries, *kept])
            gone = [f"{SEGMENTS}/{e['name']}" for e in older]
            for name in gone:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.folder / name)
            self._log.forget(gone)
            return len(older)

    def check(self) -> None:
        """SharedDeviceId when a file in this device's folder was not written by it."""
        self._own.check(self._log)

    # -- what every write goes through --------------------------------------------------

    def _ready(self) -> None:
        """Check the folder, write keyparams if missing, load the manifest once."""
        self._own.check(self._log)
        if not (self.folder / KEYPARAMS).is_file():
            params = self._key.params(self.device).to_json()
            self._write_clear(KEYPARAMS, json.dumps(params, indent=1).encode())
        if self._manifest is None:
            self._manifest = self._load_manifest()

    def _load_manifest(self) -> dict:
        if not (self.folder / MANIFEST).is_file():
            return {"device": self.device, "name": self.name, "seq": 0, "segments": []}
        plain, _ = open_sealed(self.sync_folder, self.device, MANIFEST, self._key.key)
        return unpack_manifest(plain, self.device, relative(self.device, MANIFEST))

    def _write_segments(self, records: list[SyncRecord]) -> list[dict]:
        """`records` as one segment, or several when past the chunk size; their entries."""
        entries, chunk, size = [], [], 0
        for record in records:
            chunk.append(record)
            size += len(str(record.to_json()))
            if size >= COMPACT_CHUNK:
                entries.append(self._write_segment(chunk))
                chunk, size = [], 0
        if chunk:
            entries.append(self._write_segment(chunk))
        return entries

    def _write_segment(self, records: list[SyncRecord]) -> dict:
        name = self._next_segment_name()
        digest = self._write(f"{SEGMENTS}/{name}", pack_segment(self.device, records))
        return {"name": name, "sha256": digest, "records": len(records)}

    def _next_segment_name(self) -> str:
        try:
            present = os.listdir(self.folder / SEGMENTS)
        except FileNotFoundError:
            present = []
        listed = [e["name"] for e in self._manifest["segments"]]
        numbers = [n for n in map(segment_number, [*present, *listed]) if n is not None]
        token = base64.b32encode(os.urandom(5)).decode("ascii").lower()
        return f"{max(numbers, default=0) + 1:08d}-{token}.seg"

    def _write_manifest(self, segments: list[dict]) -> None:
        manifest = {
            "device": self.device,
            "name": self.name,
            "seq": self._manifest["seq"] + 1,
            "segments": segments,
        }
        self._write(MANIFEST, pack_document(manifest))
        self._manifest = manifest

    def _write(self, name: str, plaintext: bytes) -> str:
        """Seal `plaintext` as this device's file `name` and write it whole: its SHA-256."""
        return self._write_clear(name, seal(self._key.key, plaintext, self.device, name))

    def _write_clear(self, name: str, data: bytes) -> str:
        digest = sha256(data)
        self._log.expect(name, digest)  # before the write: a crash mid-way is no intruder
        st = write_whole(self.folder / name, data, mode=0o644)
        self._log.settle(name, digest, st)
        return digest

    def _read_segment(self, entry: dict) -> list[SyncRecord]:
        name = f"{SEGMENTS}/{entry['name']}"
        plain, _ = open_sealed(
            self.sync_folder, self.device, name, self._key.key, sha=entry["sha256"]
        )
        return unpack_segment(plain, self.device, relative(self.device, name))
