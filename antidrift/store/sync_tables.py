"""What SQLiteStore keeps for sync (migration 16): the outbox a change fills in its own
transaction, the newest clock stamp taken per record, the segments imported whole, and the
commitments as records (an ended commitment with what its review shows, or its removal).

A record's id is `commitment:<its id>` (commitment ids are random UUIDs: one id names one
commitment on every machine). Its body holds the commitment's fields (the day's item it was
started from among them), the machine it was made on (`device_id`, `device`), its time per
app and what its review shows (store/sync_evidence.py); None is a removal.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from datetime import datetime

from antidrift.core.isotime import from_iso
from antidrift.core.ports import COMMITMENT, KINDS, RULE, SETTING, Incoming
from antidrift.store.evidence_tables import forget_device_evidence
from antidrift.store.sync_evidence import (
    carries_evidence,
    episodes_json,
    evidence_of,
    keep_evidence,
    verdicts_json,
)
from antidrift.store.sync_stamps import chunks, keep_seen, marks, seen, waiting

_FIELDS = (
    "id",
    "next_action",
    "success_condition",
    "timebox_secs",
    "started_at",
    "deadline",
    "ended_at",
    "outcome",
    "note",
    "extended_secs",
    "actual_secs",
    "paused_secs",
    "away_secs",
    "task_source",
    "task_id",
    "task_title",
    "task_url",
    "enforce",
    "written_back",
    "day_item_id",
)
_TEXT = {"id", "next_action", "success_condition", "started_at", "deadline", "ended_at"}
_TEXT |= {"outcome", "note", "task_source", "task_id", "task_title", "task_url", "enforce"}
_TEXT |= {"written_back", "day_item_id"}
_CHECKS = tuple((name, name in _TEXT) for name in _FIELDS)  # text (True), or a whole number
_OUTCOMES = ("met", "missed", "discarded")
MAX_APPS = 200  # a commitment's apps carried in its record (the review shows a dozen)
_COLUMNS = (*_FIELDS, "device_id", "device")
# A record into the history; one this machine runs now (outcome NULL: a copied id?) is left
# as it is — its own ending will say.
_UPSERT = (
    f"INSERT INTO commitments ({', '.join(_COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in _COLUMNS)})"
    " ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(
        f"{name} = excluded.{name}"
        for name in _COLUMNS
        if name not in ("id", "device_id", "device", "day_item_id")
    )
    # A record from an older AntiDrift names no day item: the one kept stays.
    + ", day_item_id = COALESCE(excluded.day_item_id, commitments.day_item_id)"
    # One made here stays this machine's, whoever corrected it; another's keeps its machine.
    + ", device_id = CASE WHEN commitments.device_id IS NULL THEN NULL"
    " ELSE excluded.device_id END"
    + ", device = CASE WHEN commitments.device_id IS NULL THEN NULL ELSE excluded.device END"
    + " WHERE commitments.outcome IS NOT NULL"
)


class SyncRecords:
    """The sync tables' part of SQLiteStore (it provides _db, _lock and _writing)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    # -- written by this machine's changes ------------------------------------------------

    def _changed(self, commitment_id: str) -> None:
        """Inside a change: this commitment's record goes to the sync folder (when sync is on;
        the outbox is kept either way, one row per change)."""
        self._writing().execute(
            "INSERT INTO sync_outbox (kind, ref) VALUES (?, ?)", (COMMITMENT, commitment_id)
        )

    def sync_outbox(self, limit: int = 500) -> list[tuple[int, str, str]]:
        """The oldest waiting changes: (seq, kind, ref)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, ref FROM sync_outbox ORDER BY seq LIMIT ?", (limit,)
            ).fetchall()
        return [(row[0], row[1], row[2]) for row in rows]

    def sync_setting_changed(self, key: str) -> None:
        """Inside a change: a setting shared with the other machines changed here."""
        self._writing().execute("INSERT INTO sync_outbox (kind, ref) VALUES (?, ?)", (SETTING, key))

    def sync_stamp(self, record: str) -> str | None:
        """The newest clock stamp kept of a record (None: none)."""
        with self._lock:
            row = self._db.execute(
                "SELECT hlc FROM sync_seen WHERE record_id = ?", (record,)
            ).fetchone()
        return row[0] if row else None

    def sync_sent(self, upto: int, stamps: Iterable[tuple[str, str]]) -> None:
        """The outbox up to `upto` is in the folder: forget it, and keep each record's stamp
        (so an older change from another machine does not undo it; upto 0: stamps alone)."""
        with self._lock:
            db = self._writing()
            db.execute("DELETE FROM sync_outbox WHERE seq <= ?", (upto,))
            keep_seen(db, stamps)

    def sync_backfill(self) -> None:
        """Every ended commitment made here, into the outbox (sync turned on: the folder
        gets this machine's whole history once), beside what already waits there."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO sync_outbox (kind, ref) SELECT ?, id FROM commitments c"
                " WHERE outcome IS NOT NULL AND device_id IS NULL AND NOT EXISTS"
                " (SELECT 1 FROM sync_outbox o WHERE o.kind = ? AND o.ref = c.id)"
                " ORDER BY ended_at",
                (COMMITMENT, COMMITMENT),
            )

    def commitment_body(self, commitment_id: str) -> dict | None:
        """The record of an ended commitment as it stands (None: it is gone): its fields,
        the machine it was made on (None: this one), its time per app."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {', '.join(_FIELDS)}, device_id, device FROM commitments"
                " WHERE id = ? AND outcome IS NOT NULL",
                (commitment_id,),
            ).fetchone()
            if row is None:
                return None
            apps = self._db.execute(
                "SELECT app, secs FROM app_time WHERE commitment_id = ? ORDER BY secs DESC LIMIT ?",
                (commitment_id, MAX_APPS),
            ).fetchall()
        body = {name: row[name] for name in _FIELDS}
        body["device_id"], body["device"] = row["device_id"], row["device"]
        body["apps"] = [[app, secs] for app, secs in apps]
        return body | self._evidence(commitment_id, from_iso(row["ended_at"]))

    def _evidence(self, commitment_id: str, until: datetime) -> dict[str, object]:
        """What the review of an ended commitment shows beyond its apps, as its record
        carries it (store/sync_evidence.py)."""
        verdicts = verdicts_json(self.judgements(commitment_id).items())
        episodes = episodes_json(self.episodes(commitment_id))
        with self._lock:
            row = self._db.execute(
                "SELECT drift_count, on_task_share, unclear_secs FROM drift_summary"
                " WHERE commitment_id = ?",
                (commitment_id,),
            ).fetchone()
        summary = (row[0], row[1], row[2]) if row is not None else None
        return evidence_of(self.place_time(commitment_id, until), verdicts, episodes, summary)

    def sync_last_stamp(self) -> str | None:
        """The greatest clock stamp kept (the clock starts after it)."""
        with self._lock:
            row = self._db.execute("SELECT MAX(hlc) FROM sync_seen").fetchone()
        return row[0]

    # -- read from other machines ----------------------------------------------------------

    def imported_segments(self, known: frozenset[str] = KINDS) -> set[str]:
        """The segments taken whole: not those holding records of a kind that this version
        (`known`) knows and the one that took them did not (they are read again)."""
        with self._lock:
            rows = self._db.execute("SELECT sha256, unread FROM sync_segments").fetchall()
        return {row[0] for row in rows if not row[1] or not known & set(row[1].split(","))}

    def sync_import(
        self,
        device: str,
        records: Iterable[Incoming],
        segment: str | None,
        unread: Iterable[str] = (),
    ) -> tuple[int, list[str]]:
        """Inside a change: take each record newer than what is kept of it (a removal too),
        then mark the segment imported (None: more batches of it follow), naming the kinds
        of records in it this version did not read (`unread`). Returns how many
        were taken, and why each refused one was (a body that is no commitment record: the
        others are taken). A batch is a few statements, not a few per record: the write
        lock is held for milliseconds."""
        taken, refused = self.sync_import_keyed(device, records, segment, unread)
        return taken, [why for _, why in refused]

    def sync_import_keyed(
        self,
        device: str,
        records: Iterable[Incoming],
        segment: str | None,
        unread: Iterable[str] = (),
    ) -> tuple[int, list[tuple[str, str]]]:
        """sync_import, each refused record named by its record id beside why."""
        batch = list(records)
        with self._lock:
            db = self._writing()
            record_ids = [r.record_id for r in batch]
            kept = seen(db, record_ids)
            # A change made here and not sent yet is the later one: it goes out with a newer
            # stamp at the next send, and the others take it (never undone by an import).
            changed_here = waiting(db, record_ids, COMMITMENT)
            newest: dict[str, Incoming] = {}
            for record in batch:  # the newest of each record, if newer than the one kept
                known = newest.get(record.record_id)
                if (
                    record.record_id not in changed_here
                    and record.hlc > kept.get(record.record_id, "")
                    and (known is None or record.hlc > known.hlc)
                ):
                    newest[record.record_id] = record
            taken = [(r.record_id.removeprefix(f"{COMMITMENT}:"), r) for r in newest.values()]
            gone = [(cid,) for cid, r in taken if r.body is None]
            rows, refused = [], []
            for cid, r in taken:
                if r.body is not None:
                    try:
                        rows.append(_checked(cid, r.body))
                    except ValueError as exc:
                        refused.append((r.record_id, str(exc)))
                        del newest[r.record_id]  # not kept as seen: a fixed copy is taken
            if gone:  # only an ended commitment is removed, and only then what it recorded
                ended = [(cid,) for cid in _ids(db, "outcome IS NOT NULL", gone)]
                for table in (
                    "samples",
                    "app_time",
                    "drift_judgements",
                    "drift_episodes",
                    "sync_window_time",
                ):
                    db.executemany(f"DELETE FROM {table} WHERE commitment_id = ?", ended)
                db.executemany("DELETE FROM drift_summary WHERE commitment_id = ?", ended)
                db.executemany("DELETE FROM commitments WHERE id = ?", ended)
                forget_device_evidence(db, [cid for (cid,) in gone])  # every machine's
            if rows:
                db.executemany(_UPSERT, rows)
                # As stored: one made here stays this machine's (S7).
                ids = set(_ids(db, "device_id IS NOT NULL", rows))
                elsewhere = [(cid, r.body) for cid, r in taken if r.body is not None and cid in ids]
                # Another machine's commitment: its time per app is the record's (its samples
                # are not here); one made here keeps what its own samples say.
                _delete_in(db, "app_time", [cid for cid, _ in elsewhere])
                db.executemany(
                    "INSERT INTO app_time (commitment_id, app, secs) VALUES (?, ?, ?)",
                    [row for cid, body in elsewhere for row in _apps(cid, body)],
                )
                for cid, body in elsewhere:  # and what its review shows, from its machine
                    if body.get("device_id") and carries_evidence(body):
                        keep_evidence(db, cid, body["device_id"], body.get("device"), body)
            keep_seen(db, [(r.record_id, r.hlc) for r in newest.values()])
            if segment is not None:
                db.execute(
                    "INSERT OR REPLACE INTO sync_segments (sha256, device_id, unread)"
                    " VALUES (?, ?, ?)",
                    (segment, device, ",".join(sorted(set(unread))) or None),
                )
        return len(newest), refused

    def rule_body(self, rule_id: str) -> dict | None:
        """A standing rule as its record carries it (None: it is gone)."""
        with self._lock:
            row = self._db.execute(
                "SELECT app, title_contains, verdict, site FROM drift_rules WHERE id = ?",
                (rule_id,),
            ).fetchone()
        return dict(row) if row is not None else None

    def sync_import_rules(self, rules: Iterable[Incoming]) -> int:
        """Inside a change: each rule record newer than the one kept (and not changed here
        since) taken — its fields already checked by the caller — or removed. How many."""
        batch = list(rules)
        with self._lock:
            db = self._writing()
            kept = seen(db, [r.record_id for r in batch])
            changed_here = waiting(db, [r.record_id for r in batch], RULE)
            taken = 0
            for r in batch:
                if r.record_id in changed_here or r.hlc <= kept.get(r.record_id, ""):
                    continue
                rule_id = r.record_id.removeprefix(f"{RULE}:")
                if r.body is None:
                    db.execute("DELETE FROM drift_rules WHERE id = ?", (rule_id,))
                else:
                    db.execute(
                        "INSERT INTO drift_rules (id, app, title_contains, verdict, site)"
                        " VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET app = excluded.app,"
                        " title_contains = excluded.title_contains, verdict = excluded.verdict,"
                        " site = excluded.site",
                        (rule_id, r.body["app"], r.body["title_contains"], r.body["verdict"],
                         r.body["site"]),
                    )  # fmt: skip
                keep_seen(db, [(r.record_id, r.hlc)])
                kept[r.record_id] = r.hlc
                taken += 1
        return taken

    def commitments_by_device(self) -> dict[str | None, int]:
        """How many ended commitments each machine made (None: this one)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT device_id, COUNT(*) FROM commitments WHERE outcome IS NOT NULL"
                " GROUP BY device_id"
            ).fetchall()
        return {row[0]: row[1] for row in rows}


def _ids(db: sqlite3.Connection, where: str, of: list[tuple]) -> list[str]:
    """Those of these commitments (each row's first value, its id) that are kept and match
    `where`, in their order: one query a chunk, not one a commitment (S2)."""
    ids = [row[0] for row in of]
    found: set[str] = set()
    for chunk in chunks(ids):
        found.update(
            row[0]
            for row in db.execute(
                f"SELECT id FROM commitments WHERE {where} AND id IN ({marks(chunk)})", chunk
            )
        )
    return [cid for cid in ids if cid in found]


def _apps(commitment_id: str, body: dict) -> list[tuple[str, str, float]]:
    """A record's time per app, each checked (at most MAX_APPS; a repeated app once)."""
    apps = body.get("apps") if isinstance(body.get("apps"), list) else []
    rows: dict[str, float] = {}
    for item in apps[:MAX_APPS]:
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and len(item[0]) <= 500
            and isinstance(item[1], int | float)
            and not isinstance(item[1], bool)
            and 0 <= item[1] <= 86400 * 7
        ):
            rows[item[0]] = float(item[1])
    return [(commitment_id, app, secs) for app, secs in rows.items()]


def _delete_in(db: sqlite3.Connection, table: str, ids: list[str]) -> None:
    """These commitments' rows of `table`: one statement a chunk, not one a commitment."""
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        db.execute(
            f"DELETE FROM {table} WHERE commitment_id IN ({', '.join('?' for _ in chunk)})", chunk
        )


def _checked(commitment_id: str, body: dict) -> tuple[object, ...]:
    """The columns a record sets (_COLUMNS, in order), each of its type and bounds;
    ValueError naming none of its text when one is not."""
    if body.get("id") != commitment_id:
        raise ValueError("a commitment record names another commitment")
    values = {name: body.get(name) for name in _FIELDS}
    for name, text in _CHECKS:  # in _FIELDS' order: the first bad one is said
        value = values[name]
        if value is None:
            continue
        if text:
            if not isinstance(value, str) or len(value) > 4000:
                raise ValueError(f"a commitment record's {name} is not text")
        elif not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10**9:
            raise ValueError(f"a commitment record's {name} is not a whole number")
    for name in ("next_action", "success_condition", "timebox_secs"):
        if not values[name]:
            raise ValueError(f"a commitment record has no {name}")
    times = []
    for name in ("started_at", "deadline", "ended_at"):
        try:
            time = from_iso(values[name])
        except (TypeError, ValueError):
            time = None
        if time is None or time.tzinfo is None:
            raise ValueError(f"a commitment record's {name} is not a time")
        times.append(time)
    if times[2] < times[0]:
        raise ValueError("a commitment record ends before it starts")
    if values["enforce"] not in (None, "off", "minimize") or values["written_back"] not in (
        None, "note", "done"
    ):  # fmt: skip
        raise ValueError("a commitment record holds a value this machine does not know")
    if values["outcome"] not in _OUTCOMES:
        raise ValueError("a commitment record has no outcome")
    for name in ("extended_secs", "paused_secs", "away_secs"):
        values[name] = values[name] or 0
    values["note"] = values["note"] or ""
    values["enforce"] = values["enforce"] or "off"
    device_id, device = body.get("device_id"), body.get("device")  # None: made here
    if device_id is not None and (
        not isinstance(device_id, str) or not device_id.isalnum() or len(device_id) > 64
    ):
        raise ValueError("a commitment record names no machine")
    return (*values.values(), device_id, device[:64] if isinstance(device, str) else None)
