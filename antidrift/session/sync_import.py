"""The others' records taken in (held by session/syncing.py's Syncing): one segment at a
time, each kind in changes of its own, at most BATCH records a change (the write lock is
never held long): shared settings, standing rules, the day's queue, what a machine watched
for another's commitment (Guard here too), then the commitments,
whose last batch marks the segment taken. Each record is checked as this machine checks
what it makes; one refused is said, and the rest are taken. Records of a kind this version
does not know are said, and the segment is marked with those kinds, so a version that knows
them reads it again. What the pages show follows each change (the pushes' listeners): the
locked view's Next up and /day after the queue, the running guard after rules."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

from antidrift.core import day
from antidrift.core.device_evidence import evidence_key
from antidrift.core.errors import ValidationError
from antidrift.core.ports import COMMITMENT, DAY_ITEM, EVIDENCE, KINDS, RULE, SETTING, Incoming
from antidrift.drift.verdicts import validate_rule
from antidrift.session.sync_settings import SharedSettings
from antidrift.sync import Arrived, Skipped, SyncRecord

log = logging.getLogger("antidrift.sync")
BATCH = 100  # records taken in one change (a few ms of the write lock)


class Importer:
    """Takes another machine's verified segment into the store, kind by kind."""

    def __init__(
        self,
        store,
        work,
        me: str,
        shared: SharedSettings,
        rules_taken: Callable[[], None] | None = None,
        known: frozenset[str] = KINDS,
    ) -> None:
        self._store, self._work, self._me = store, work, me
        self._shared, self._rules_taken = shared, rules_taken
        self.known = known  # the kinds this version reads; the others are left for a later
        self.day_taken = 0  # changes of the day's queue taken in (an open /day follows them)

    def take(self, segment: Arrived) -> list[Skipped]:
        """One segment: its records taken, what was refused said."""
        where = segment_file(segment.device, segment.name)
        of: dict[str, list[SyncRecord]] = {}
        for record in segment.records:
            of.setdefault(record.kind, []).append(record)
        skipped: list[Skipped] = []
        if of.get(SETTING):
            skipped += self._shared.take(segment.device, of[SETTING])
        if of.get(RULE):
            skipped += self._rules(where, of[RULE])
        try:
            if of.get(DAY_ITEM):
                skipped += self._day(where, of[DAY_ITEM])
            if of.get(EVIDENCE):
                skipped += self._evidence(where, of[EVIDENCE])
        except sqlite3.OperationalError as exc:  # the disk, a lock: not marked, read again
            log.warning("sync: a file of %s waits: %s", segment.device, exc)
            return _once([*skipped, Skipped(where, "could not be imported; it waits")])
        unread = sorted(kind for kind in of if kind not in self.known)
        if unread:  # a newer AntiDrift's: left in the folder for the version that reads them
            count = sum(len(of[kind]) for kind in unread)
            said = f"holds {count} record(s) this version of AntiDrift does not know"
            skipped.append(Skipped(where, said))
        incoming = [self._commitment(r) for r in of.get(COMMITMENT, [])]
        return _once(skipped + self._commitments(segment, where, incoming, unread))

    def _commitment(self, record: SyncRecord) -> Incoming:
        body = record.body
        if body is not None:  # a copy only where it changes (the record's stays as read)
            machine = body.get("device_id")
            if machine == self._me:
                body = body | {"device_id": None, "device": None}  # made here
            elif machine is None:
                body = body | {"device_id": "?"}  # refused by the store: it names no machine
        return Incoming(record.id, str(record.hlc), body)

    def _rules(self, where: str, records: list[SyncRecord]) -> list[Skipped]:
        """Standing rules, each checked as the rules page checks one, taken in one change;
        the running commitment's guard follows them."""
        incoming, skipped = [], []
        for record in records:
            body = None
            if record.body is not None:
                b = record.body
                try:
                    app, text, verdict, site = validate_rule(
                        b.get("app"), b.get("title_contains"), b.get("verdict"), b.get("site")
                    )
                except (ValidationError, AttributeError):
                    skipped.append(Skipped(where, "holds a rule refused here"))
                    continue
                body = {"app": app, "title_contains": text, "verdict": verdict.value, "site": site}
            incoming.append(Incoming(record.id, str(record.hlc), body))
        with self._work as work:
            taken = self._store.sync_import_rules(incoming)
            if taken:
                work.changed()
        if taken and self._rules_taken is not None:
            self._rules_taken()
        return skipped

    def _day(self, where: str, records: list[SyncRecord]) -> list[Skipped]:
        """The day's items, each checked as an item added here is, in changes of BATCH."""
        incoming, skipped = [], []
        for record in records:
            body = None
            if record.body is not None:
                try:
                    item_id = record.id.removeprefix(f"{DAY_ITEM}:")
                    body = day.record_of(day.item_of(item_id, record.body))
                except ValidationError:
                    skipped.append(Skipped(where, "holds a day item refused here"))
                    continue
            incoming.append(Incoming(record.id, str(record.hlc), body))

        def moved(work) -> None:
            work.then(self._day_moved)  # committed: /day's list follows it
            work.changed()  # and the locked view's Next up

        counts, said = self._batches(
            where, incoming, self._store.sync_import_day, moved, "holds a day item refused here"
        )
        skipped += said
        over = sum(counts)  # new items past the queue's bound (core/day.MAX_STORED): left out
        if over:
            past = f"holds {over} day item(s) past the {day.MAX_STORED} a day keeps; left out"
            skipped.append(Skipped(where, past))
        return skipped

    def _evidence(self, where: str, records: list[SyncRecord]) -> list[Skipped]:
        """What another machine watched for a commitment (Guard here too), in changes of
        BATCH: a machine's record names itself and one commitment; this machine's own are
        not taken back. The pages show it by device (the review, history, Insights)."""
        incoming, skipped = [], []
        for record in records:
            key = evidence_key(record.id)
            if key is not None and key[1] == self._me:
                continue  # this machine's own, in a folder it did not write: never taken
            body = record.body
            if (
                key is None
                or key[1] != record.device
                or (body is not None and body.get("commitment_id") != key[0])
            ):
                skipped.append(Skipped(where, "holds evidence refused here"))
                continue
            incoming.append(Incoming(record.id, str(record.hlc), body))
        refusals, said = self._batches(
            where,
            incoming,
            self._store.sync_import_evidence,
            lambda work: work.changed(),  # the review and the history show it
            "holds evidence refused here",
        )
        skipped += said
        for refused in refusals:
            skipped += [Skipped(where, why) for why in refused[:3]]
        return skipped

    def _batches(self, where, incoming, take, taken_then, refused_why):
        """`incoming` taken by `take` a BATCH at a time, each in one change (`taken_then(work)`
        inside it when it took any): what each batch the store took refused, and what to
        say. A batch the store will never take (a constraint, a bad value) is said refused
        and the rest go on; the disk or a lock (OperationalError) is raised: the whole
        segment waits (take)."""
        results, said = [], []
        for start in range(0, len(incoming), BATCH):
            try:
                with self._work as work:
                    taken, refused = take(incoming[start : start + BATCH])
                    if taken:
                        taken_then(work)
            except sqlite3.OperationalError:
                raise
            except (ValueError, sqlite3.Error) as exc:  # these records, not the segment
                log.warning("sync: records in %s were refused: %s", where, exc)
                said.append(Skipped(where, refused_why))
                continue
            results.append(refused)
        return results, said

    def _day_moved(self) -> None:
        self.day_taken += 1

    def _commitments(
        self, segment: Arrived, where: str, incoming: list[Incoming], unread: list[str]
    ) -> list[Skipped]:
        """The commitments in batches; the last one marks the segment taken. When each
        commitment is in the segment once (as a device writes them), nothing taken of one
        depends on another, and they go in the order of their ids: neighbours in the store's
        indexes, so a change writes a few pages of each, not one a record (S2). What was
        refused is said as the segment's own order has it: at most three of each BATCH."""
        place = {r.record_id.removeprefix(f"{COMMITMENT}:"): n for n, r in enumerate(incoming)}
        ordered = len(place) == len(incoming)
        if ordered:
            incoming = sorted(incoming, key=lambda r: r.record_id)
        said: list[tuple[int, str]] = []  # (where in the segment, why)
        for start in range(0, max(len(incoming), 1), BATCH):
            batch = incoming[start : start + BATCH]
            sha = segment.sha256 if start + BATCH >= len(incoming) else None
            try:
                with self._work as work:
                    taken, refused = self._store.sync_import_keyed(
                        segment.device, batch, sha, unread
                    )
                    if taken:
                        work.changed()  # the pages list the history
            except (ValueError, sqlite3.Error) as exc:  # the store refused: the file waits
                log.warning("sync: a file of %s was not imported: %s", segment.device, exc)
                return [*_said(where, said), Skipped(where, "could not be imported; it waits")]
            for n, (record_id, why) in enumerate(refused):
                cid = record_id.removeprefix(f"{COMMITMENT}:")
                said.append((place[cid] if ordered else start + n, why))
        return _said(where, said)


def _once(skipped: list[Skipped]) -> list[Skipped]:
    """Each reason a segment's records were refused said once (a segment of half a million
    bad records is a few lines on /sync.json, not half a million), in the order first met."""
    return list(dict.fromkeys(skipped))


def _said(where: str, refused: list[tuple[int, str]]) -> list[Skipped]:
    """Each refused record said (at most three of each BATCH in the segment, in its order);
    the rest were taken."""
    count: dict[int, int] = {}
    skipped = []
    for at, why in sorted(refused):
        if count.setdefault(at // BATCH, 0) < 3:
            count[at // BATCH] += 1
            skipped.append(Skipped(where, why))
    return skipped


def segment_file(device: str, name: str) -> str:
    return f"devices/{device}/segments/{name}"
