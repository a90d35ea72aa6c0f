"""The other devices' side of the sync folder, polled: `changed()` is a handful of `stat`s (no
file opened), and `read()` verifies and returns what is new.

Every file is read through core/outside.py's bounded reader, checked against the manifest's
SHA-256 (a segment), opened with its device's key under its own name (AEAD), and parsed
within bounds. A file that fails — not arrived yet, cut short, damaged, swapped, sealed with
another key — is passed over, named in `skipped` with why in words that quote nothing of it,
and tried again at the next read; nothing of it is returned. Sync tools' leftovers are never
read and never removed. A file in this device's own folder that it did not write stops the
read (SharedDeviceId)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from antidrift.sync.errors import FileProblem, Malformed
from antidrift.sync.folder import (
    KEYPARAMS,
    MANIFEST,
    NOW,
    SEGMENTS,
    device_dir,
    devices_dir,
    open_sealed,
    other_devices,
    relative,
)
from antidrift.sync.hlc import Stamp
from antidrift.sync.keyring import Keyring, read_keyparams
from antidrift.sync.records import SyncRecord, unpack_manifest, unpack_now, unpack_segment
from antidrift.sync.written import OwnFolder

NO_KEY = "is from a device this machine has no key for yet: enter the sync passphrase to read it"
NEW_KEY = "has changed since this machine derived its key: enter the sync passphrase again"
OLDER = "is older than one read before (a sync tool brought back an old copy)"


@dataclass(frozen=True)
class Skipped:
    """A file not taken this time, and why (quoting nothing of it)."""

    file: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "why": self.why}


@dataclass(frozen=True)
class Arrived:
    """A verified segment of another device: its records, to import in one batch."""

    device: str
    name: str
    sha256: str  # what the importer keeps, so the next read passes it over
    records: tuple[SyncRecord, ...]


@dataclass(frozen=True)
class Elsewhere:
    """Another device's `now`: `seen_at` is this machine's wall time (seconds) when it first
    saw this version, whatever the other machine's clock says."""

    device: str
    name: str
    hlc: Stamp
    body: dict
    seen_at: float


@dataclass(frozen=True)
class Peer:
    """Another device as the folder shows it; `last_seen`: this machine's wall time of the
    last change seen in its manifest or `now` (None: none yet)."""

    id: str
    name: str
    last_seen: float | None
    segments: int
    records: int


@dataclass(frozen=True)
class Found:
    """What one read found."""

    arrived: tuple[Arrived, ...] = ()
    elsewhere: tuple[Elsewhere, ...] = ()
    peers: tuple[Peer, ...] = ()
    skipped: tuple[Skipped, ...] = ()


@dataclass
class _Seen:
    """What this reader remembers of a device between reads."""

    name: str = ""
    manifest_seq: int = -1
    manifest_sha: str = ""
    now_sha: str = ""
    now: Elsewhere | None = None
    last_seen: float | None = None
    counts: tuple[int, int] = (0, 0)


@dataclass
class _Read:
    arrived: list[Arrived] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    retry: dict[Path, tuple | None] = field(default_factory=dict)  # a skipped segment's stat


class FolderReader:
    """Polls the other devices' folders; one per sync folder, used from one thread."""

    def __init__(
        self,
        sync_folder: Path,
        data_dir: str | Path,
        device: str,
        keyring: Keyring,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.sync_folder, self.device = Path(sync_folder), device
        self._keyring, self._wall = keyring, wall
        self._own = OwnFolder(self.sync_folder, data_dir, device)
        self._seen: dict[str, _Seen] = {}
        self._watched: list[Path] = []  # the folders and each device's three files
        self._retry: dict[Path, tuple | None] = {}  # segments skipped, as they were then
        self._print: tuple | None = None
        self._lock = threading.Lock()

    def changed(self) -> bool:
        """Whether anything in the folder may have changed since the last read: a few stats
        (the folders, each device's three files, the segments skipped last time); True
        before the first read."""
        if self._print is None or self._fingerprint() != self._print:
            return True
        return any(_stat(path) != then for path, then in self._retry.items())

    def read(self, imported: Collection[str] = frozenset()) -> Found:
        """Every other device's segments not in `imported` (SHA-256s: what was imported
        before), verified; each device's `now`; the devices; what was skipped.
        SharedDeviceId when this device's own folder holds a file it did not write."""
        with self._lock:
            devices = other_devices(self.sync_folder, self.device)
            self._watch(devices)
            fingerprint = self._fingerprint()  # taken first: a change mid-read is seen next
            self._keyring.refresh()
            self._own.check()
            done = _Read()
            for device in devices:
                self._read_device(device, imported, done)
            self._print, self._retry = fingerprint, done.retry
            return Found(
                tuple(done.arrived),
                tuple(s.now for d, s in sorted(self._seen.items()) if s.now and d in devices),
                tuple(self._peer(d) for d in devices),
                tuple(done.skipped),
            )

    # -- one device ---------------------------------------------------------------------

    def _read_device(self, device: str, imported: Collection[str], done: _Read) -> None:
        seen = self._seen.setdefault(device, _Seen())
        entry = self._keyring.get(device)
        try:
            params = read_keyparams(self.sync_folder, device)
        except FileProblem as exc:
            done.skipped.append(Skipped(exc.what, exc.why))
            return
        if entry is None or not entry.fits(params):
            done.skipped.append(Skipped(relative(device, KEYPARAMS), NEW_KEY if entry else NO_KEY))
            return
        folder = device_dir(self.sync_folder, device)
        if os.path.lexists(folder / MANIFEST):
            self._read_manifest(device, entry.key, seen, imported, done)
        if os.path.lexists(folder / NOW):
            self._read_now(device, entry.key, seen, done)

    def _read_manifest(
        self, device: str, key: bytes, seen: _Seen, imported: Collection[str], done: _Read
    ) -> None:
        try:
            plain, sha = open_sealed(self.sync_folder, device, MANIFEST, key)
            manifest = unpack_manifest(plain, device, relative(device, MANIFEST))
        except FileProblem as exc:
            done.skipped.append(Skipped(exc.what, exc.why))
            return
        if manifest["seq"] < seen.manifest_seq:
            done.skipped.append(Skipped(relative(device, MANIFEST), OLDER))
            return
        if sha != seen.manifest_sha:
            seen.manifest_seq, seen.manifest_sha, seen.last_seen = (
                manifest["seq"],
                sha,
                self._wall(),
            )
        seen.name = manifest.get("name", "") or seen.name
        listed = manifest["segments"]
        seen.counts = (len(listed), sum(e["records"] for e in listed))
        for entry in listed:
            if entry["sha256"] in imported:
                continue
            name = f"{SEGMENTS}/{entry['name']}"
            what = relative(device, name)
            path = device_dir(self.sync_folder, device) / name
            then = _stat(path)  # before the read: a change after it is seen next time
            try:
                plain, _ = open_sealed(self.sync_folder, device, name, key, sha=entry["sha256"])
                records = unpack_segment(plain, device, what)
            except FileProblem as exc:
                done.skipped.append(Skipped(exc.what, exc.why))
                done.retry[path] = then
                continue
            if len(records) != entry["records"]:
                problem = Malformed(what, "holds another count of records than its manifest says")
                done.skipped.append(Skipped(problem.what, problem.why))
                done.retry[path] = then
                continue
            done.arrived.append(Arrived(device, entry["name"], entry["sha256"], tuple(records)))

    def _read_now(self, device: str, key: bytes, seen: _Seen, done: _Read) -> None:
        try:
            plain, sha = open_sealed(self.sync_folder, device, NOW, key)
            now = unpack_now(plain, device, relative(device, NOW))
        except FileProblem as exc:
            done.skipped.append(Skipped(exc.what, exc.why))
            return
        if sha == seen.now_sha:
            return
        at = self._wall()
        seen.now_sha, seen.last_seen = sha, at
        seen.name = now.get("name", "") or seen.name
        seen.now = Elsewhere(device, seen.name, now["hlc"], now["body"], at)

    def _peer(self, device: str) -> Peer:
        seen = self._seen.get(device) or _Seen()
        return Peer(device, seen.name, seen.last_seen, *seen.counts)

    # -- the cheap look -----------------------------------------------------------------

    def _watch(self, devices: list[str]) -> None:
        paths = [devices_dir(self.sync_folder)]
        for device in [self.device, *devices]:
            folder = device_dir(self.sync_folder, device)
            paths += [
                folder,
                folder / SEGMENTS,
                folder / KEYPARAMS,
                folder / MANIFEST,
                folder / NOW,
            ]
        self._watched = paths

    def _fingerprint(self) -> tuple:
        return tuple(_stat(path) for path in [self._keyring.path, *self._watched])


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
