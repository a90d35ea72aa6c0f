"""The day's queue as the session keeps it: add, delete, move, clear, each one unit of work
(one transaction; items left from an earlier day are carried to today in the same one), and
the day as the pages read it (today's items, planned against free minutes, planned against
done). Starting an item
is the controller's (Plan it, then Start: it leaves the queue in the Start's transaction)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time

from antidrift.core import day as rules
from antidrift.core.day import DayItem
from antidrift.core.domain import MAX_TEXT, NotFound, TaskRef
from antidrift.core.order_key import key_at, salt_of
from antidrift.core.ports import DayItems
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

# The calendar's events as (start, end) spans: whatever it kept last (never any I/O).
Spans = Callable[[], Iterable[tuple[datetime, datetime]]]
NO_ITEM = "There is no such item in the day's queue (any more)."


@dataclass(frozen=True)
class DayView:
    """The day as /day and /day.json show it."""

    date: date
    items: tuple[DayItem, ...]
    planned_minutes: int
    free_minutes: int
    now: datetime
    tally: rules.Tally = rules.Tally()  # today's planned against done (met, missed, carried)

    @property
    def fit(self) -> str:
        return rules.fit_text(self.planned_minutes, self.free_minutes)

    @property
    def over(self) -> bool:
        return self.planned_minutes > self.free_minutes

    @property
    def full(self) -> bool:
        return len(self.items) >= rules.MAX_ITEMS

    @property
    def full_text(self) -> str:
        """Why nothing can be added (the page says what a refused add says)."""
        return rules.full_text(len(self.items))


class DayQueue:
    """The queue's changes and its view. `spans`: the calendar's events; `ends`: when the
    day ends (the day_ends setting; a change applies at once: Runtime.take_up)."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: DayItems,
        spans: Spans | None = None,
        ends: time = rules.DAY_ENDS,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._spans = spans or (lambda: ())
        self.ends = ends

    def _today(self) -> date:
        return rules.local_day(self._s.now())

    def view(self) -> DayView:
        """Today's queue (an item from an earlier day shows as carried before any change
        writes it so), its planned minutes and the free minutes left today."""
        with self._work:
            now = self._s.now()
        today = rules.local_day(now)
        items = tuple(i if i.day == today else _carried(i, today) for i in self._store.day_queue())
        return DayView(
            today,
            items,
            rules.planned_minutes(items),
            rules.free_minutes(now, self._spans(), self.ends),
            now,
            rules.tallies(self._store.day_records(today), today).get(today, rules.Tally()),
        )

    def item(self, item_id: object) -> DayItem:
        """One queued item (NotFound: 404)."""
        if isinstance(item_id, str):
            for item in self._store.day_queue():
                if item.id == item_id:
                    return item
        raise NotFound(NO_ITEM)

    def _queue(self) -> list[DayItem]:
        """Under the lock: the queue, carried to today first (a write of this change)."""
        self._store.carry_day_items(self._today())
        return self._store.day_queue()

    def add(
        self, next_action: object, success_condition: object = None, timebox_minutes: object = None
    ) -> DayItem:
        """POST /day/items: a new item at the end of the queue."""
        fields = rules.validate_item(next_action, success_condition, timebox_minutes)
        return self._add(fields)

    def add_task(self, task: TaskRef) -> DayItem:
        """POST /day/items task=…: an item whose next action is the task's title (a longer
        title is cut to a next action's length)."""
        return self._add(rules.validate_item(task.title.strip()[:MAX_TEXT]))

    def _add(self, fields: rules.ItemFields) -> DayItem:
        return self.add_all([fields])[0]

    def add_all(self, fields: Sequence[rules.ItemFields]) -> list[DayItem]:
        """New items at the end of the queue, in order, in one change: all of them, or none
        when they would pass the fiftieth (409)."""
        with self._work as work:
            queue = self._queue()
            rules.check_room(len(queue), len(fields))
            now = self._s.now()
            last = max((i.position for i in queue), default=-1)
            ids = [str(uuid.uuid4()) for _ in fields]  # random: one item on every machine
            orders = _after(queue, ids)
            if orders is None:  # no room after the last key: the queue spread anew first
                self._store.order_day_items([i.id for i in queue])
                orders = _after(self._store.day_queue(), ids) or ["" for _ in ids]
            added = [
                DayItem(
                    id=ids[n],
                    day=rules.local_day(now),
                    next_action=f.next_action,
                    success_condition=f.success_condition,
                    timebox_minutes=f.timebox_minutes,
                    position=last + 1 + n,
                    created_at=now,
                    order=orders[n],
                )
                for n, f in enumerate(fields)
            ]
            for item in added:
                self._store.add_day_item(item)
            work.changed()
        return added

    def free_spans(self, now: datetime) -> list[tuple[datetime, int]]:
        """The free stretches from `now` until the day ends, around the calendar's events
        (their times only)."""
        return rules.free_spans(now, self._spans(), self.ends)

    def delete(self, item_id: str) -> DayItem:
        with self._work as work:
            gone = _find(self._queue(), item_id)
            self._store.delete_day_item(gone.id)
            work.changed()
        return gone

    def move(self, item_id: str, to: object) -> int:
        """The item at index `to` (or one up or down); its new index. Only the moved item's
        order key changes (a move made at once on another machine keeps its own), unless
        the keys leave no room there: then the whole order is spread anew."""
        with self._work as work:
            queue = self._queue()
            item = _find(queue, item_id)
            ids = [i.id for i in queue]
            at = rules.parse_position(to, len(ids), ids.index(item.id))
            if at != ids.index(item.id):
                others = [i.order for i in queue if i.id != item.id]
                order = key_at(others, at, salt_of(item.id))
                if order is None:
                    self._store.order_day_items(rules.moved(ids, item.id, at))
                else:
                    self._store.move_day_item(item.id, order)
            work.changed()
        return at

    def clear(self) -> int:
        """Every item not started leaves the queue; how many did."""
        with self._work as work:
            self._queue()
            gone = self._store.clear_day_queue()
            work.changed()
        return gone


def _after(queue: list[DayItem], ids: list[str]) -> list[str] | None:
    """Order keys for new items `ids`, in turn after the queue's last (None: no room)."""
    keys = [i.order for i in queue]
    for item_id in ids:
        key = key_at(keys, len(keys), salt_of(item_id))
        if key is None:
            return None
        keys.append(key)
    return keys[len(queue) :]


def _find(queue: list[DayItem], item_id: str) -> DayItem:
    for item in queue:
        if item.id == item_id:
            return item
    raise NotFound(NO_ITEM)


def _carried(item: DayItem, today: date) -> DayItem:
    return replace(item, day=today, carried=True)
