"""This machine and the sync folder: its identity, and when a folder is set, what changed here
written there (the outbox each change filled, as one new segment) and what the others wrote
taken in (each segment in batches, one change each: the write lock is never held long).

What travels: ended commitments (with what their review showed), standing rules, shared
settings, the day's queue, and what this machine watched for another's commitment (Guard here
too), each a record the later clock stamp wins. The files, their keys
and their format are the sync wing's (antidrift/sync); here they meet the store and the unit
of work, through two parts Syncing holds: the shared settings (sync_settings.py) and the
taking in of the others' records (sync_import.py). A thread looks every POLL seconds;
`tick()` is one look (the tests call it). A refusal (a wrong passphrase, a copied data
directory, a folder that cannot be written) is kept as `problem`, said on /sync.json and in
doctor, and nothing is taken.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from antidrift.core.day import record_of
from antidrift.core.device_evidence import evidence_id
from antidrift.core.errors import Error, ValidationError
from antidrift.core.ports import DAY_ITEM, EVIDENCE, RULE, SETTING
from antidrift.session.sync_saying import Sightings, SyncStatus, seen_at
from antidrift.settings import LiveSettings
from antidrift.sync.identity import device_id

if TYPE_CHECKING:  # the rest of the sync wing is loaded when a sync folder is used
    from antidrift.session.sync_import import Importer
    from antidrift.session.sync_settings import SharedSettings
    from antidrift.sync import DeviceWriter, FolderReader, HybridClock, Keyring, Skipped, SyncRecord

log = logging.getLogger("antidrift.sync")
POLL = 5.0  # seconds between two looks at the folder (the contract: at most every 5 s)
REPUBLISH = 60.0  # seconds: while active, `now` is written again this often (it ages)
BULK = 2_000  # records arriving at one look past which the log is checkpointed once, after
MAX_SEGMENTS = 24  # more of this machine's segments are compacted into one


class Syncing:
    """This machine's side of sync (off when `folder` is None: then only its identity); the
    shared settings and the taking in of the others' records are parts it holds."""

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
        rules_taken: Callable[[], None] | None = None,
    ) -> None:
        self._store, self._work = store, work
        self.data_dir, self.folder, self.name = Path(data_dir), folder, name
        self.me = device_id(self.data_dir)
        self._passphrase, self._fast = passphrase, fast
        self._snapshot, self._wall = snapshot, wall
        self._settings, self._rules_taken = settings, rules_taken
        self._published: tuple[object, ...] | None = None
        self._published_at = 0.0
        self.sightings = Sightings(lambda: self._wall())  # the others' `now`, by our clock
        self._wake = threading.Event()
        self.problem: str | None = None
        self._peer_problem: str | None = None  # a peer's key the passphrase does not open
        self._tried: tuple[frozenset[str], str] | None = None
        self._force_read = False
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

    @cached_property
    def shared(self) -> SharedSettings:
        """The shared settings, to the folder and from it (built at first use: with no
        folder, never, nor loaded)."""
        from antidrift.session.sync_settings import SharedSettings

        return SharedSettings(self._store, self._work, self._settings)

    @cached_property
    def importer(self) -> Importer:
        """The others' records taken in; the running commitment's guard follows new rules."""
        from antidrift.session.sync_import import Importer

        return Importer(self._store, self._work, self.me, self.shared, self._rules_taken)

    # -- what it says ------------------------------------------------------------------------

    def elsewhere(self) -> list[dict[str, object]]:
        """/state's `elsewhere` (session/sync_saying.py)."""
        return self.sightings.elsewhere()

    def now_of(self, device_id: str) -> dict[str, object] | None:
        """One other machine's running commitment, as Guard here too follows it."""
        return self.sightings.now_of(device_id)

    def status(self) -> SyncStatus:
        """/sync.json: this machine, the others with their commitments here, what waits."""
        counts = self._store.commitments_by_device()
        devices = [
            {**peer, "commitments": counts.get(str(peer["id"]), 0)}
            for peer in list(self._peers.values())
        ]
        return SyncStatus(
            {"id": self.me, "name": self.name},
            str(self.folder) if self.folder else None,
            devices,
            [s.to_json() for s in self._skipped],
            self.problem,
        )

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
            self.problem = self._peer_problem
        except Error as exc:
            self._say(exc.message)
        except OSError as exc:  # the folder: gone, read-only, full, a file in its place
            self._say(
                f"The sync folder {self.folder} cannot be used ({exc.strerror or exc}):"
                " check that it is there and writable; nothing was lost here."
            )

    def _say(self, problem: str) -> None:
        if problem != self.problem:
            log.warning("sync: %s", problem)
        self.problem = problem

    def _ready(self) -> bool:
        """The writer and reader, once this machine's key is known (a passphrase derives it
        the first time; the keyring keeps it)."""
        if self._writer is not None:
            return True
        from antidrift.sync import (
            DeviceWriter,
            FolderReader,
            HybridClock,
            Keyring,
            Stamp,
            WrongPassphrase,
            unlock,
        )

        assert self.folder is not None
        if not self.folder.is_dir():  # an unmounted share is not written into
            self._say(
                f"The sync folder {self.folder} is not there: mount or make it, or change"
                " the sync folder in Settings."
            )
            return False
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
                try:
                    unlock(keys, self.folder, self.me, passphrase, fast=self._fast)
                except WrongPassphrase as exc:  # one machine's files it does not open:
                    self._peer_problem = exc.message  # this one's key, and sync with the rest
                    self._tried = (self._unknown_peers(keys), _digest(passphrase))
                    unlock(keys, self.folder, self.me, passphrase, fast=self._fast, peers=False)
        entry = keys.get(self.me)
        assert entry is not None
        last = self._store.sync_last_stamp()
        self._clock = HybridClock(  # this machine's wall, as `now` freshness reads it
            self.me, wall=lambda: int(self._wall() * 1000), last=Stamp.parse(last) if last else None
        )
        writer = DeviceWriter(self.folder, self.data_dir, self.me, entry, name=self.name)
        if not writer.segments:  # the first time here: the whole history goes
            with self._work:
                self._store.sync_backfill()
                self._store.sync_backfill_day()  # and the day's queue as it stands
                for key in self.shared.saved():  # and the shared settings chosen here
                    self._store.sync_setting_changed(key)
        if unsent := self._store.followed_unsent():  # guarding here, ended by a restart
            with self._work:
                for commitment_id in unsent:
                    self._store.followed_publish(commitment_id)
        self._reader = FolderReader(self.folder, self.data_dir, self.me, keys)
        self._writer = writer  # last: a backfill that failed is tried again at the next look
        return True

    def _unknown_peers(self, keys: Keyring) -> frozenset[str]:
        """The other machines whose keyparams are there and whose key is not kept."""
        from antidrift.sync.folder import device_dir, other_devices

        assert self.folder is not None
        try:
            present = other_devices(self.folder, self.me)
        except OSError:
            return frozenset()
        known = set(keys.devices())
        return frozenset(
            d
            for d in present
            if d not in known and (device_dir(self.folder, d) / "keyparams").is_file()
        )

    def settings_changed(self, keys: Iterable[str]) -> None:
        """Settings saved here: the shared ones go to the others (sync on only)."""
        if self.on and self.shared.changed(keys):
            self.wake()

    def _send(self) -> None:
        assert self._writer is not None and self._clock is not None
        while rows := self._store.sync_outbox():
            # One record per thing changed, as it stands now (changed twice: once).
            records = [self._record(kind, ref) for kind, ref in dict.fromkeys(r[1:] for r in rows)]
            self._writer.append(records)
            with self._work:
                self._store.sync_sent(rows[-1][0], [(r.id, str(r.hlc)) for r in records])
        if len(self._writer.segments) > MAX_SEGMENTS:
            self._writer.compact()

    def _record(self, kind: str, ref: str) -> SyncRecord:
        """What `kind` `ref` is here now, stamped (a removal: body None)."""
        from antidrift.sync import SyncRecord

        assert self._clock is not None
        if kind == SETTING:
            return self.shared.record(ref, self.me, self._clock.now())
        if kind == EVIDENCE:  # what this machine watched for another's commitment
            body = self._store.evidence_body(ref)
            if body is not None:
                body["device"] = self.name
            return SyncRecord(self.me, evidence_id(ref, self.me), self._clock.now(), kind, body)
        if kind == RULE:
            body = self._store.rule_body(ref)
        elif kind == DAY_ITEM:
            item = self._store.day_item(ref)
            body = record_of(item) if item is not None else None
        else:  # a commitment: its machine named (this one's by its id and name)
            body = self._store.commitment_body(ref)
            if body is not None and body["device_id"] is None:
                body["device_id"], body["device"] = self.me, self.name
        return SyncRecord(self.me, f"{kind}:{ref}", self._clock.now(), kind, body)

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
        stale = active and self._wall() - self._published_at >= REPUBLISH
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

    def _take(self) -> None:
        assert self._reader is not None and self._clock is not None
        if not (self._reader.changed() or self._force_read):
            return
        self._force_read = False
        found = self._reader.read(imported=self._store.imported_segments(self.importer.known))
        self._skipped = list(found.skipped)
        for seen in found.elsewhere:
            self.sightings.saw(seen)
        for peer in found.peers:
            self._peers[peer.id] = {
                "id": peer.id,
                "name": peer.name[:64],
                "last_seen": seen_at(peer.last_seen),
            }
        many = sum(len(segment.records) for segment in found.arrived) > BULK
        with self._store.deferred_checkpoints() if many else contextlib.nullcontext():
            for segment in found.arrived:  # many changes in a row: one checkpoint after
                if segment.records:  # the clock moves past the newest stamp seen, once
                    self._clock.merge(max(record.hlc for record in segment.records))
                self._skipped += self.importer.take(segment)

    def _learn_peers(self) -> None:
        """A machine that joined since: its key derived, when the passphrase is at hand
        (else the reader names its files: "enter the sync passphrase"). A passphrase that
        does not open one is said, and not tried again (its key derivation costs) until
        the machines or the passphrase change; it never stops what sync does for the rest."""
        from antidrift.sync import Keyring, WrongPassphrase, unlock

        keys = Keyring(self.data_dir)
        unknown = self._unknown_peers(keys)
        if not unknown or not (passphrase := self._passphrase()):
            return
        tried = (unknown, _digest(passphrase))
        if tried == self._tried:
            return
        self._tried = tried
        assert self.folder is not None
        try:
            unlock(keys, self.folder, self.me, passphrase, fast=self._fast)
        except WrongPassphrase as exc:
            self._peer_problem = exc.message
            return
        self._peer_problem = None
        self._force_read = True  # the reader's keyring reloads; its files are read again

    def join(self, passphrase: object) -> None:
        """The passphrase, entered on the Settings page: this machine's key and the others'
        derived and kept (never the passphrase). ValidationError or WrongPassphrase (a
        sentence; nothing kept) otherwise; sync looks again at once."""
        from antidrift.sync import Keyring, unlock
        from antidrift.sync.crypto import MIN_PASSPHRASE, open_key
        from antidrift.sync.errors import FileProblem
        from antidrift.sync.keyring import read_keyparams

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
        keys = Keyring(self.data_dir)
        if keys.get(self.me) is not None:  # a key kept already: the passphrase must open it
            try:
                params = read_keyparams(self.folder, self.me)
            except FileProblem:
                params = None  # not written there yet: nothing to check it against
            if params is not None:
                open_key(passphrase, self.me, params)  # WrongPassphrase: nothing kept
        unlock(keys, self.folder, self.me, passphrase, fast=self._fast)
        self._tried, self._peer_problem = None, None  # the others are tried again
        self._force_read = True  # the next look reads every file with the keys kept now
        self.wake()


def _digest(passphrase: str) -> str:
    """What tells one passphrase from another in memory (never the passphrase itself)."""
    return hashlib.sha256(passphrase.encode()).hexdigest()
