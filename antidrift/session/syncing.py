"""This machine and the sync folder: its identity, and when a folder is set, what changed here
written there (the outbox each change filled, as one new segment) and what the others wrote
taken in (each segment in batches, one change each: the write lock is never held long).

The files, their keys and their format are the sync wing's (antidrift/sync); here they meet
the store and the unit of work. A thread looks every POLL seconds; `tick()` is one look (the
tests call it). A refusal (a wrong passphrase, a copied data directory, a folder that cannot
be written) is kept as `problem`, said on /sync.json and in doctor, and nothing is taken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from antidrift.core.errors import Error, ValidationError
from antidrift.core.isotime import iso
from antidrift.core.ports import SETTING, Incoming, record_id
from antidrift.settings import LiveSettings, SettingsError
from antidrift.sync import (
    DeviceWriter,
    Elsewhere,
    FolderReader,
    HybridClock,
    Keyring,
    Skipped,
    Stamp,
    SyncRecord,
    device_id,
    unlock,
)
from antidrift.sync.crypto import MIN_PASSPHRASE

log = logging.getLogger("antidrift.sync")
POLL = 5.0  # seconds between two looks at the folder (the contract: at most every 5 s)
REPUBLISH = 60.0  # seconds: while active, `now` is written again this often (it ages)
FRESH = 180.0  # seconds: another machine's `now` is shown while seen this recently
BATCH = 100  # records taken in one change (a few ms of the write lock)
MAX_SEGMENTS = 24  # more of this machine's segments are compacted into one


@dataclass
class SyncStatus:
    """What /sync.json says: this machine, the others, what was skipped and why."""

    device: dict[str, str]
    folder: str | None
    devices: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    problem: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "device": self.device,
            "folder": self.folder,
            "devices": self.devices,
            "skipped": self.skipped,
            "problem": self.problem,
        }


class Syncing:
    """This machine's side of sync (off when `folder` is None: then only its identity)."""

    def __init__(
        self,
        store,
        work,
        data_dir: Path,
        folder: Path | None,
        name: str,
        passphrase: Callable[[], str | None] = lambda: None,
        fast: bool = False,
        snapshot: Callable[[], object] | None = None,
        wall: Callable[[], float] = time.time,
        settings: LiveSettings | None = None,
    ) -> None:
        self._store, self._work = store, work
        self.data_dir, self.folder, self.name = Path(data_dir), folder, name
        self.me = device_id(self.data_dir)
        self._passphrase, self._fast = passphrase, fast
        self._snapshot, self._wall = snapshot, wall
        self._settings = settings  # the shared ones go to the folder, and come from it
        self.applying = False  # a shared setting from another machine is being saved here
        self._published: tuple[object, ...] | None = None
        self._published_at = 0.0
        self._elsewhere: dict[str, Elsewhere] = {}
        self._wake = threading.Event()
        self.problem: str | None = None
        self._skipped: list[Skipped] = []
        self._peers: dict[str, dict[str, object]] = {}
        self._writer: DeviceWriter | None = None
        self._reader: FolderReader | None = None
        self._clock: HybridClock | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def on(self) -> bool:
        return self.folder is not None

    # -- the thread --------------------------------------------------------------------------

    def start(self) -> None:
        if not self.on or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="antidrift-sync", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=POLL + 1)

    def wake(self) -> None:
        """Something changed here (a transition): look now, not at the next poll."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                self.tick()
            except Exception:  # a bug must not end sync for the rest of the run
                log.exception("sync failed; trying again in %g s", POLL)
            self._wake.wait(POLL)

    # -- one look ----------------------------------------------------------------------------

    def tick(self) -> None:
        """Write what changed here, then take in what the others wrote (sync on only). One
        thread looks (the sync thread, or a test's): never two ticks at once. What it
        changes in the store goes through the unit of work."""
        if not self.on:
            return
        try:
            if not self._ready():
                return
            self._learn_peers()
            self._send()
            self._publish()
            self._take()
            self.problem = None
        except Error as exc:
            if exc.message != self.problem:
                log.warning("sync: %s", exc.message)
            self.problem = exc.message

    def _ready(self) -> bool:
        """The writer and reader, once this machine's key is known (a passphrase derives it
        the first time; the keyring keeps it)."""
        if self._writer is not None:
            return True
        assert self.folder is not None
        keys = Keyring(self.data_dir)
        if keys.get(self.me) is None or self._unknown_peers(keys):
            passphrase = self._passphrase()
            if not passphrase:
                if keys.get(self.me) is None:
                    self.problem = (
                        "Sync waits for its passphrase: enter it with `antidrift sync join`"
                        " (or ANTIDRIFT_SYNC_PASSPHRASE_FILE)."
                    )
                    return False
            else:
                unlock(keys, self.folder, self.me, passphrase, fast=self._fast)
        entry = keys.get(self.me)
        assert entry is not None
        last = self._store.sync_last_stamp()
        self._clock = HybridClock(self.me, last=Stamp.parse(last) if last else None)
        self._writer = DeviceWriter(self.folder, self.data_dir, self.me, entry, name=self.name)
        self._reader = FolderReader(self.folder, self.data_dir, self.me, keys)
        if not self._writer.segments:  # the first time here: the whole history goes
            with self._work:
                self._store.sync_backfill()
                for key in self._saved_shared():  # and the shared settings chosen here
                    self._store.sync_setting_changed(key)
        return True

    def _saved_shared(self) -> list[str]:
        if self._settings is None:
            return []
        current = self._settings.current()
        return [
            row.key
            for row in current.table.rows
            if row.shared and current.source(row.key) == "saved"
        ]

    def settings_changed(self, keys: Iterable[str]) -> None:
        """Settings saved here (the Settings page): those shared with the other machines
        wait in the outbox, in one change. Not while one from another machine is saved."""
        if not self.on or self.applying or self._settings is None:
            return
        table = self._settings.current().table
        shared = [k for k in keys if k in table.by_key and table.by_key[k].shared]
        if shared:
            with self._work:
                for key in shared:
                    self._store.sync_setting_changed(key)
            self.wake()

    def _unknown_peers(self, keys: Keyring) -> bool:
        assert self.folder is not None
        devices = self.folder / "antidrift" / "devices"
        try:
            present = {p.name for p in devices.iterdir() if p.is_dir()}
        except OSError:
            return False
        return bool(present - set(keys.devices()) - {self.me})

    def _send(self) -> None:
        assert self._writer is not None and self._clock is not None
        while rows := self._store.sync_outbox():
            records = []
            for _seq, kind, ref in rows:
                if kind == SETTING:
                    records.append(self._setting_record(ref))
                    continue
                body = self._store.commitment_body(ref)
                if body is not None and body["device_id"] is None:
                    body["device_id"], body["device"] = self.me, self.name
                records.append(SyncRecord(self.me, record_id(ref), self._clock.now(), kind, body))
            self._writer.append(records)
            with self._work:
                self._store.sync_sent(rows[-1][0], [(r.id, str(r.hlc)) for r in records])
        if len(self._writer.segments) > MAX_SEGMENTS:
            self._writer.compact()

    def _setting_record(self, key: str) -> SyncRecord:
        """A shared setting as it stands here: its value, or None when it went back to its
        default (the others forget theirs too)."""
        assert self._clock is not None
        value = None
        if self._settings is not None:
            current = self._settings.current()
            if current.source(key) == "saved":
                value = current.shown(key)
        body = {"key": key, "value": value}
        return SyncRecord(self.me, f"{SETTING}:{key}", self._clock.now(), SETTING, body)

    def _take_settings(self, device: str, records: list[SyncRecord]) -> None:
        """Shared settings from another machine, each newer than the one kept: saved here
        (settings.json, as the page saves) unless this machine's environment sets it."""
        for record in records:
            kept = self._store.sync_stamp(record.id)
            if kept is not None and kept >= str(record.hlc):
                continue
            body = record.body if isinstance(record.body, dict) else {}
            key, value = body.get("key"), body.get("value")
            table = self._settings.current().table if self._settings else None
            row = table.by_key.get(key) if table and isinstance(key, str) else None
            if row is None or not row.shared or record.id != f"{SETTING}:{key}":
                self._skipped.append(
                    Skipped(f"devices/{device}", "holds a setting that is not shared")
                )
                continue
            assert self._settings is not None
            if self._settings.current().source(row.key) != "environment":
                self.applying = True
                try:
                    self._settings.update({row.key: value})
                except SettingsError:
                    self._skipped.append(
                        Skipped(f"devices/{device}", f"holds a value of {row.key} refused here")
                    )
                    continue
                finally:
                    self.applying = False
            with self._work:
                self._store.sync_sent(0, [(record.id, str(record.hlc))])

    def _publish(self) -> None:
        """This machine's runtime in `now`: at each transition, and every REPUBLISH seconds
        while a commitment runs (the others count its end from when they saw the file)."""
        if self._snapshot is None:
            return
        assert self._writer is not None and self._clock is not None
        snap = self._snapshot()
        c = getattr(snap, "commitment", None)
        state = snap.state.value
        paused = bool(c is not None and c.paused)
        said = (state, c.id if c else None, c.next_action if c else None, paused)
        active = state == "active" and c is not None
        left = c.seconds_left(snap.now) if active else None
        stale = active and not paused and self._wall() - self._published_at >= REPUBLISH
        if said == self._published and not stale:
            return
        body = {
            "state": state,
            "commitment_id": c.id if c else None,
            "next_action": c.next_action if c else None,
            "success_condition": c.success_condition if c else None,
            "secs_left": left,
            "paused": paused,
        }
        self._writer.publish(body, self._clock.now())
        self._published, self._published_at = said, self._wall()

    def elsewhere(self) -> list[dict[str, object]]:
        """/state's `elsewhere`: each other machine's runtime, while its `now` was seen in the
        last FRESH seconds (this machine's clock alone: clocks a day apart still agree)."""
        now, shown = self._wall(), []
        for device, seen in sorted(self._elsewhere.items()):
            body = seen.body if isinstance(seen.body, dict) else {}
            if now - seen.seen_at > FRESH or not isinstance(body.get("state"), str):
                continue
            left = body.get("secs_left")
            ends = None
            if body.get("state") == "active" and isinstance(left, int | float) and left >= 0:
                ends = _seen(seen.seen_at + min(float(left), 86400.0 * 2))
            shown.append(
                {
                    "device": seen.name or device,
                    "device_id": device,
                    "state": body["state"][:20],
                    "commitment_id": _text(body.get("commitment_id"), 64),
                    "next_action": _text(body.get("next_action"), 500),
                    "ends_at": ends,
                    "paused": body.get("paused") is True,
                }
            )
        return shown

    def _take(self) -> None:
        assert self._reader is not None and self._clock is not None
        if not self._reader.changed():
            return
        found = self._reader.read(imported=self._store.imported_segments())
        self._skipped = list(found.skipped)
        for seen in found.elsewhere:
            self._elsewhere[seen.device] = seen
        for peer in found.peers:
            self._peers[peer.id] = {
                "id": peer.id,
                "name": peer.name,
                "last_seen": _seen(peer.last_seen),
            }
        for segment in found.arrived:
            incoming = []
            if segment.records:  # the clock moves past the newest stamp seen, once
                self._clock.merge(max(record.hlc for record in segment.records))
            settings = [r for r in segment.records if r.kind == SETTING]
            if settings:
                self._take_settings(segment.device, settings)
            for record in segment.records:
                if record.kind == SETTING:
                    continue
                body = record.body
                if body is not None:
                    body = dict(body)
                    if body.get("device_id") == self.me:
                        body["device_id"], body["device"] = None, None  # made here
                    elif body.get("device_id") is None:
                        body["device_id"] = "?"  # refused below: a record names its machine
                incoming.append(Incoming(record.id, str(record.hlc), body))
            self._import(segment.device, segment.sha256, incoming, segment.name)

    def _import(self, device: str, sha: str, incoming: list[Incoming], name: str) -> None:
        for start in range(0, max(len(incoming), 1), BATCH):
            batch = incoming[start : start + BATCH]
            last = start + BATCH >= len(incoming)
            try:
                with self._work as work:
                    taken = self._store.sync_import(device, batch, sha if last else None)
                    if taken:
                        work.changed()  # the pages list the history
            except ValueError as exc:  # a record that is not one: the whole file waits
                self._skipped.append(Skipped(f"devices/{device}/{name}", str(exc)))
                return

    def _learn_peers(self) -> None:
        """A machine that joined since: its key derived, when the passphrase is at hand
        (else the reader names its files: "enter the sync passphrase")."""
        keys = Keyring(self.data_dir)
        if self._unknown_peers(keys) and (passphrase := self._passphrase()):
            assert self.folder is not None
            unlock(keys, self.folder, self.me, passphrase, fast=self._fast)
            self._reader = FolderReader(self.folder, self.data_dir, self.me, keys)

    def join(self, passphrase: object) -> None:
        """The passphrase, entered on the Settings page: this machine's key and the others'
        derived and kept (never the passphrase). ValidationError or WrongPassphrase (a
        sentence; nothing kept) otherwise; sync looks again at once."""
        if not isinstance(passphrase, str) or len(passphrase) < MIN_PASSPHRASE:
            raise ValidationError(
                f"The sync passphrase has at least {MIN_PASSPHRASE} characters.",
                "sync_passphrase",
            )
        if not self.on:
            raise ValidationError(
                "Set the sync folder first: the passphrase opens what is in it.",
                "sync_passphrase",
            )
        assert self.folder is not None
        unlock(Keyring(self.data_dir), self.folder, self.me, passphrase, fast=self._fast)
        self._writer = self._reader = None  # the next look takes the keys up
        self.problem = None
        self.wake()

    # -- what is said ------------------------------------------------------------------------

    def status(self) -> SyncStatus:
        counts = self._store.commitments_by_device()
        devices = []
        for peer in self._peers.values():
            devices.append({**peer, "commitments": counts.get(str(peer["id"]), 0)})
        return SyncStatus(
            {"id": self.me, "name": self.name},
            str(self.folder) if self.folder else None,
            devices,
            [s.to_json() for s in self._skipped],
            self.problem,
        )


def _seen(wall: float | None) -> str | None:
    return iso(datetime.fromtimestamp(wall, UTC)) if wall is not None else None


def _text(value: object, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) else None
