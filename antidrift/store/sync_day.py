"""The day's queue as sync carries it (SQLiteStore's part; migration 19): an item as its
record stands, and the items other machines changed taken in.

One record per item (`day_item:<its id>`; ids are random UUIDs), the later stamp winning
(the hybrid clock, then the device id): an added, moved, started or put-back item is its
whole row; a deleted or cleared one a tombstone. A change made here and not sent yet wins
(it goes out with a newer stamp). A tombstone never removes an item started here: its row
stays with its commitment (an item started on two machines at once leaves the queue on both,
and both commitments stand), and an item started elsewhere is out of the queue here once
that commitment's record arrives (store/day_tables.py's queue reads the commitments too)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable

from antidrift.core.day import DayItem
from antidrift.core.ports import DAY_ITEM, Incoming
from antidrift.store.day_tables import _item

_COLUMNS = (
    "id",
    "day",
    "next_action",
    "success_condition",
    "timebox_minutes",
    "position",
    "created_at",
    "started_at",
    "carried",
    "order_key",
)
_UPSERT = (
    f"INSERT INTO day_items ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
    " ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("id", "position"))
)


class DaySync:
    """The day items' records (it provides _db, _lock and _writing)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    def day_item(self, item_id: str) -> DayItem | None:
        """One item as its record carries it, queued or started (None: it is gone)."""
        with self._lock:
            row = self._db.execute("SELECT * FROM day_items WHERE id = ?", (item_id,)).fetchone()
        return _item(row) if row is not None else None

    def sync_backfill_day(self) -> None:
        """The queue as it stands, into the outbox (sync turned on: the others get it)."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO sync_outbox (kind, ref) SELECT ?, id FROM day_items d"
                " WHERE started_at IS NULL AND NOT EXISTS"
                " (SELECT 1 FROM sync_outbox o WHERE o.kind = ? AND o.ref = d.id)"
                " ORDER BY order_key, id",
                (DAY_ITEM, DAY_ITEM),
            )

    def sync_import_day(self, records: Iterable[Incoming]) -> int:
        """Inside a change: each item record (a body already checked and written as
        core/day.record_of writes one, or None: a removal) newer than the one kept and not
        changed here since, taken. How many."""
        batch = list(records)
        with self._lock:
            db = self._writing()
            ids = [r.record_id for r in batch]
            kept = dict(
                db.execute(
                    f"SELECT record_id, hlc FROM sync_seen WHERE record_id IN ({_marks(ids)})",
                    ids,
                ).fetchall()
            )
            refs = [i.removeprefix(f"{DAY_ITEM}:") for i in ids]
            waiting = {
                f"{DAY_ITEM}:{row[0]}"
                for row in db.execute(
                    f"SELECT ref FROM sync_outbox WHERE kind = ? AND ref IN ({_marks(refs)})",
                    [DAY_ITEM, *refs],
                ).fetchall()
            }
            taken = 0
            for r in batch:
                if r.record_id in waiting or r.hlc <= kept.get(r.record_id, ""):
                    continue
                item_id = r.record_id.removeprefix(f"{DAY_ITEM}:")
                if r.body is None:  # a removal: of an item not started here
                    db.execute(
                        "DELETE FROM day_items WHERE id = ? AND started_at IS NULL", (item_id,)
                    )
                else:
                    b = r.body
                    position = db.execute(
                        "SELECT COALESCE(MAX(position), -1) + 1 FROM day_items"
                    ).fetchone()[0]
                    db.execute(
                        _UPSERT,
                        (item_id, b["day"], b["next_action"], b["success_condition"],
                         b["timebox_minutes"], position, b["created_at"], b["started_at"],
                         int(b["carried"]), b["order"]),
                    )  # fmt: skip
                db.execute(
                    "INSERT INTO sync_seen (record_id, hlc) VALUES (?, ?) ON CONFLICT(record_id)"
                    " DO UPDATE SET hlc = excluded.hlc",
                    (r.record_id, r.hlc),
                )
                kept[r.record_id] = r.hlc
                taken += 1
        return taken


def _marks(values: list[str]) -> str:
    return ", ".join("?" for _ in values)
