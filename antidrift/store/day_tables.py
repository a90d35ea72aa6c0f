"""The day's queue in SQLiteStore (migration 17's day_items): the items not started, in
order; an item added, deleted, moved (the whole order written anew: at most 50), cleared,
started (it leaves the queue, the row stays with its start) and carried to today; and what
the day's end counts (each item's day, start and its commitment's outcome)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime

from antidrift.core.day import DayItem, ItemRecord
from antidrift.core.isotime import from_iso

_QUEUED = "SELECT * FROM day_items WHERE started_at IS NULL"


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
    )


class DayRecords:
    """The day_items table's part of SQLiteStore (it provides _db, _lock and _writing)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    def day_queue(self) -> list[DayItem]:
        """The items not started yet, first to last."""
        with self._lock:
            rows = self._db.execute(_QUEUED + " ORDER BY position, created_at").fetchall()
        return [_item(r) for r in rows]

    def day_records(self, since: date) -> list[ItemRecord]:
        """Each item of `since` or later, and each not started (a carried one), as (day,
        started, outcome): met when a commitment from it was met, else missed when one was
        missed, else None (a discarded one puts its item back, not started)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT d.day AS day, d.started_at IS NOT NULL AS started,"
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
        with self._lock:
            self._writing().execute(
                "INSERT INTO day_items (id, day, next_action, success_condition,"
                " timebox_minutes, position, created_at, carried) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    item.id,
                    item.day.isoformat(),
                    item.next_action,
                    item.success_condition,
                    item.timebox_minutes,
                    item.position,
                    item.created_at.isoformat(),
                    int(item.carried),
                ),
            )

    def delete_day_item(self, item_id: str) -> bool:
        """Remove an item not started; False when the queue has no such item."""
        with self._lock:
            cursor = self._writing().execute(
                "DELETE FROM day_items WHERE id = ? AND started_at IS NULL", (item_id,)
            )
        return cursor.rowcount > 0

    def order_day_items(self, ids: Sequence[str]) -> None:
        """The queue's order, as `ids` lists it."""
        with self._lock:
            self._writing().executemany(
                "UPDATE day_items SET position = ? WHERE id = ?",
                [(index, item_id) for index, item_id in enumerate(ids)],
            )

    def clear_day_queue(self) -> int:
        """Every item not started leaves the queue; how many did."""
        with self._lock:
            cursor = self._writing().execute("DELETE FROM day_items WHERE started_at IS NULL")
        return cursor.rowcount

    def start_day_item(self, item_id: str, at: datetime) -> bool:
        """The item became a commitment: it leaves the queue. False when it was not queued."""
        with self._lock:
            cursor = self._writing().execute(
                "UPDATE day_items SET started_at = ? WHERE id = ? AND started_at IS NULL",
                (at.isoformat(), item_id),
            )
        return cursor.rowcount > 0

    def unstart_day_item(self, item_id: str) -> None:
        """A commitment from the queue was discarded: its item is queued again, in its place."""
        with self._lock:
            self._writing().execute(
                "UPDATE day_items SET started_at = NULL WHERE id = ?", (item_id,)
            )

    def carry_day_items(self, today: date) -> int:
        """Items not started on an earlier day belong to `today` now, marked carried."""
        with self._lock:
            cursor = self._writing().execute(
                "UPDATE day_items SET day = ?, carried = 1 WHERE day < ? AND started_at IS NULL",
                (today.isoformat(), today.isoformat()),
            )
        return cursor.rowcount
