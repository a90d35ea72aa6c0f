"""The day's queue in SQLiteStore (migration 17's day_items): the items not started, in
order; an item added, deleted, moved (one item's order key; or the whole order spread anew),
cleared, started (it leaves the queue, the row stays with its start) and carried to today;
and what the day's end counts (each item's day, start and its commitment's outcome).

The queue is one on every machine (migration 19, store/sync_day.py): each change of an item
puts it in the sync outbox in the change's own transaction (a removal goes as a tombstone);
the carrying over is each machine's own (the same on each, by the date)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime

from antidrift.core.day import MAX_STORED, DayItem, ItemRecord
from antidrift.core.isotime import from_iso
from antidrift.core.order_key import between, salt_of, spread
from antidrift.core.ports import DAY_ITEM

# Queued, the one definition (the queue's reads, a delete, a clear, the carrying over and a
# removal from another machine): not started, and no commitment started from it runs here
# or ended met or missed on any machine (a start elsewhere that a later edit of the item did
# not know of).
_LIVE = "c.outcome IS NULL OR c.outcome IN ('met', 'missed')"
_IN_QUEUE = (
    "started_at IS NULL AND NOT EXISTS (SELECT 1 FROM commitments c"
    f" WHERE c.day_item_id = day_items.id AND ({_LIVE}))"
)
# Started here: a commitment made on this machine (device_id NULL) from it runs or counts.
_STARTED_HERE = (
    "EXISTS (SELECT 1 FROM commitments c WHERE c.day_item_id = day_items.id"
    f" AND c.device_id IS NULL AND ({_LIVE}))"
)
_QUEUED = "SELECT * FROM day_items WHERE " + _IN_QUEUE


def _item(row: sqlite3.Row) -> DayItem:
    return DayItem(
        id=row["id"],
        day=from_iso(row["day"]).date(),  # YYYY-MM-DD as written
        next_action=row["next_action"],
        success_condition=row["success_condition"],
        timebox_minutes=row["timebox_minutes"],
        position=row["position"],
        created_at=from_iso(row["created_at"]),
        started_at=from_iso(row["started_at"]),
        carried=bool(row["carried"]),
        order=row["order_key"],
    )


def _changed(db: sqlite3.Connection, ids: Sequence[str]) -> None:
    """Inside the change: these items go to the sync folder (as they stand then, or gone)."""
    db.executemany(
        "INSERT INTO sync_outbox (kind, ref) VALUES (?, ?)", [(DAY_ITEM, i) for i in ids]
    )


class DayRecords:
    """The day_items table's part of SQLiteStore (it provides _db, _lock and _writing)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    def day_queue(self) -> list[DayItem]:
        """The items not started yet, first to last (at most MAX_STORED: read at every
        locked view and /day, whatever the other machines sent)."""
        with self._lock:
            rows = self._db.execute(
                _QUEUED + " ORDER BY order_key, id LIMIT ?", (MAX_STORED,)
            ).fetchall()
        return [_item(r) for r in rows]

    def day_records(self, since: date) -> list[ItemRecord]:
        """Each item of `since` or later, and each not started (a carried one), as (day,
        started, outcome): met when a commitment from it was met, else missed when one was
        missed, else None (a discarded one puts its item back, not started)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT d.day AS day,"
                f" d.started_at IS NOT NULL OR IFNULL(MAX(c.id IS NOT NULL AND ({_LIVE})), 0)"
                " AS started,"
                " MAX(c.outcome = 'met') AS met, MAX(c.outcome = 'missed') AS missed"
                " FROM day_items d LEFT JOIN commitments c ON c.day_item_id = d.id"
                " WHERE d.day >= ? OR d.started_at IS NULL GROUP BY d.id",
                (since.isoformat(),),
            ).fetchall()
        return [
            (
                from_iso(r["day"]).date(),
                bool(r["started"]),
                "met" if r["met"] else "missed" if r["missed"] else None,
            )
            for r in rows
        ]

    def add_day_item(self, item: DayItem) -> None:
        """A new item; without an order key, after the last one queued."""
        with self._lock:
            db = self._writing()
            order = item.order
            if not order:
                last = db.execute("SELECT MAX(order_key) FROM day_items WHERE " + _IN_QUEUE)
                order = between(last.fetchone()[0], None, salt_of(item.id)) or spread(1)[0]
            db.execute(
                "INSERT INTO day_items (id, day, next_action, success_condition,"
                " timebox_minutes, position, created_at, carried, order_key)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    item.id,
                    item.day.isoformat(),
                    item.next_action,
                    item.success_condition,
                    item.timebox_minutes,
                    item.position,
                    item.created_at.isoformat(),
                    int(item.carried),
                    order,
                ),
            )
            _changed(db, [item.id])

    def delete_day_item(self, item_id: str) -> bool:
        """Remove an item not started; False when the queue has no such item."""
        with self._lock:
            db = self._writing()
            cursor = db.execute("DELETE FROM day_items WHERE id = ? AND " + _IN_QUEUE, (item_id,))
            if cursor.rowcount > 0:
                _changed(db, [item_id])
        return cursor.rowcount > 0

    def order_day_items(self, ids: Sequence[str]) -> None:
        """The queue's order, as `ids` lists it: every item's order key spread anew."""
        with self._lock:
            db = self._writing()
            keys = spread(len(ids))
            db.executemany(
                "UPDATE day_items SET position = ?, order_key = ? WHERE id = ?",
                [(index, keys[index], item_id) for index, item_id in enumerate(ids)],
            )
            _changed(db, ids)

    def move_day_item(self, item_id: str, order: str) -> None:
        """One item to its new place: its order key alone changes."""
        with self._lock:
            db = self._writing()
            db.execute("UPDATE day_items SET order_key = ? WHERE id = ?", (order, item_id))
            _changed(db, [item_id])

    def clear_day_queue(self) -> int:
        """Every item not started leaves the queue; how many did."""
        with self._lock:
            db = self._writing()
            gone = db.execute("DELETE FROM day_items WHERE " + _IN_QUEUE + " RETURNING id")
            ids = [row[0] for row in gone.fetchall()]
            _changed(db, ids)
        return len(ids)

    def start_day_item(self, item_id: str, at: datetime) -> bool:
        """The item became a commitment: it leaves the queue. False when it was not queued."""
        with self._lock:
            db = self._writing()
            cursor = db.execute(
                "UPDATE day_items SET started_at = ? WHERE id = ? AND started_at IS NULL",
                (at.isoformat(), item_id),
            )
            if cursor.rowcount > 0:
                _changed(db, [item_id])
        return cursor.rowcount > 0

    def unstart_day_item(self, item_id: str) -> None:
        """A commitment from the queue was discarded: its item is queued again, in its place."""
        with self._lock:
            db = self._writing()
            db.execute("UPDATE day_items SET started_at = NULL WHERE id = ?", (item_id,))
            _changed(db, [item_id])

    def carry_day_items(self, today: date) -> int:
        """Items not started on an earlier day belong to `today` now, marked carried."""
        with self._lock:
            cursor = self._writing().execute(
                "UPDATE day_items SET day = ?, carried = 1 WHERE day < ? AND " + _IN_QUEUE,
                (today.isoformat(), today.isoformat()),
            )
        return cursor.rowcount
