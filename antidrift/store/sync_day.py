"""The day's queue as sync carries it (SQLiteStore's part; migration 19): an item as its
record stands, and the items other machines changed taken in.

One record per item (`day_item:<its id>`; ids are random UUIDs), the later stamp winning
(the hybrid clock, then the device id): an added, moved, started or put-back item is its
whole row; a deleted or cleared one a tombstone. A change made here and not sent yet wins
(it goes out with a newer stamp). A tombstone removes only an item queued (day_tables'
one definition): never one started here, whose row stays with its commitment (an item
started on two machines at once leaves the queue on both, and both commitments stand); a
later edit from a machine that did not know of that start keeps the start, and the item's
record goes out again, so the start wins there too. An item started elsewhere is out of the
queue here once its record says so or that commitment's record arrives (store/day_tables.py's
queue reads the commitments too). At most MAX_STORED items not started are kept: a new one
past them is refused and said."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable

from antidrift.core.day import MAX_STORED, DayItem
from antidrift.core.ports import DAY_ITEM, Incoming
from antidrift.store.day_tables import _IN_QUEUE, _STARTED_HERE, _changed, _item
from antidrift.store.sync_stamps import keep_seen, marks, seen, waiting

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

    def sync_import_day(self, records: Iterable[Incoming]) -> tuple[int, int]:
        """Inside a change: each item record (a body already checked and written as
        core/day.record_of writes one, or None: a removal) newer than the one kept and not
        changed here since, taken. An item started here keeps its start whatever the record
        says, and its record goes out again (the outbox: the start wins on the others too);
        a removal takes only an item queued (day_tables' one definition). A new item not
        started past MAX_STORED of them is refused. (How many taken, how many refused.)"""
        batch = list(records)
        with self._lock:
            db = self._writing()
            ids = [r.record_id for r in batch]
            kept = seen(db, ids)
            refs = [i.removeprefix(f"{DAY_ITEM}:") for i in ids]
            changed_here = waiting(db, ids, DAY_ITEM)
            # The batch's items kept here: (started_at, started here).
            here: dict[str, tuple[str | None, bool]] = {
                row[0]: (row[1], bool(row[2]))
                for row in db.execute(
                    f"SELECT id, started_at, {_STARTED_HERE} FROM day_items"
                    f" WHERE id IN ({marks(refs)})",
                    refs,
                ).fetchall()
            }
            unstarted = db.execute(
                "SELECT COUNT(*) FROM day_items WHERE started_at IS NULL"
            ).fetchone()[0]
            # Items a day holds, started or not (the week's read of a day stays bounded
            # whatever another machine sends): those of the batch's days.
            days = sorted({r.body["day"] for r in batch if r.body is not None})
            per_day = dict(
                db.execute(
                    f"SELECT day, COUNT(*) FROM day_items WHERE day IN ({marks(days)})"
                    " GROUP BY day",
                    days,
                ).fetchall()
            )
            taken = refused = 0
            again: list[str] = []  # started here, and the record says not: sent again
            for r in batch:
                if r.record_id in changed_here or r.hlc <= kept.get(r.record_id, ""):
                    continue
                item_id = r.record_id.removeprefix(f"{DAY_ITEM}:")
                started, mine = here.get(item_id, (None, False))
                was = item_id in here and started is None  # kept here, not started
                if r.body is None:  # a removal: of an item queued here
                    gone = db.execute(
                        "DELETE FROM day_items WHERE id = ? AND " + _IN_QUEUE + " RETURNING day",
                        (item_id,),
                    ).fetchall()
                    if gone:
                        unstarted -= 1
                        per_day[gone[0][0]] = per_day.get(gone[0][0], 1) - 1
                        del here[item_id]
                else:
                    b = r.body
                    start = started if mine and started is not None else b["started_at"]
                    new = item_id not in here
                    if (start is None and not was and unstarted >= MAX_STORED) or (
                        new and per_day.get(b["day"], 0) >= MAX_STORED
                    ):
                        refused += 1  # a new item past the bound: left out (and said)
                        continue
                    unstarted += (start is None) - was
                    per_day[b["day"]] = per_day.get(b["day"], 0) + new
                    here[item_id] = (start, mine)
                    db.execute(
                        _UPSERT,
                        (item_id, b["day"], b["next_action"], b["success_condition"],
                         b["timebox_minutes"], 0, b["created_at"], start, int(b["carried"]),
                         b["order"]),
                    )  # fmt: skip
                if mine and (r.body is None or r.body["started_at"] is None):
                    again.append(item_id)
                keep_seen(db, [(r.record_id, r.hlc)])
                kept[r.record_id] = r.hlc
                taken += 1
            if again:
                _changed(db, list(dict.fromkeys(again)))
        return taken, refused
